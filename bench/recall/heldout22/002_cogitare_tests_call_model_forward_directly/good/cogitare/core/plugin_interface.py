class PluginInterface:
    def __init__(self, function, name=None):
        self.function = function
        self.name = name or getattr(function, "__name__", "plugin")

    def __call__(self, *args, **kwargs):
        return self.function(*args, **kwargs)
