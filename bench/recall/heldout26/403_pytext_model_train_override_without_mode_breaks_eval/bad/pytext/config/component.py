class Component:
    """Base of every configurable piece: keeps the config it was built from."""

    __COMPONENT_TYPE__ = None
    __EXPANSIBLE__ = False

    def __init__(self, config=None, *args, **kwargs):
        self.config = config
