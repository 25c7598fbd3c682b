from contextlib import contextmanager


@contextmanager
def optional(condition, context_manager, *args, **kwargs):
    """Enter `context_manager(*args, **kwargs)` only when `condition` holds."""
    if condition:
        with context_manager(*args, **kwargs):
            yield
    else:
        yield
