import re

import torch.nn as nn


class BaseObject(nn.Module):
    def __init__(self, name=None):
        super().__init__()
        self._name = name

    @property
    def __name__(self):
        if self._name is None:
            s = re.sub("(.)([A-Z][a-z]+)", r"\1_\2", self.__class__.__name__)
            return re.sub("([a-z0-9])([A-Z])", r"\1_\2", s).lower()
        return self._name


class Metric(BaseObject):
    pass


class Loss(BaseObject):
    pass
