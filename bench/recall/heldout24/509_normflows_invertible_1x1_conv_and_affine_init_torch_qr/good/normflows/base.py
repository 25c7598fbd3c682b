from torch import nn


class Flow(nn.Module):
    """A bijection with a tractable log-determinant of its Jacobian."""

    def forward(self, z):
        raise NotImplementedError

    def inverse(self, z):
        raise NotImplementedError
