import time
from contextlib import contextmanager

from lizrd.core import nn


class LoggingLayer(nn.Module):
    """A layer that can cache values during forward for periodic logging."""

    def __init__(self):
        super().__init__()
        self.logging_switch = False
        self.cached_data = {}

    def prepare_for_logging(self):
        self.logging_switch = True

    def report_stats(self):
        self.logging_switch = False
        data, self.cached_data = self.cached_data, {}
        return data

    def cache(self, key, value):
        if self.logging_switch:
            self.cached_data[key] = value.detach() if hasattr(value, "detach") else value


@contextmanager
def measure_time(layer: LoggingLayer, name: str):
    if not layer.logging_switch:
        yield
        return
    start = time.time()
    yield
    layer.cached_data.setdefault("time", {})[name] = time.time() - start
