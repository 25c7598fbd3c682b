import torch.nn as nn


class BaseActivation(nn.Module):
    """Shared plumbing: subclasses implement `_forward`."""

    def __init__(self, **kwargs):
        super().__init__()

    def forward(self, x):
        return self._forward(x)

    def _forward(self, x):
        raise NotImplementedError
