import torch
from torch.nn import Module


class Normalize(Module):
    def __init__(self, d, batch_shape=torch.Size(), learn_bounds=True):
        super().__init__()
        self._d = d
        self.learn_bounds = learn_bounds
        self.register_buffer("mins", torch.zeros(*batch_shape, 1, d))
        self.register_buffer("ranges", torch.ones(*batch_shape, 1, d))

    def forward(self, X):
        if self.training and self.learn_bounds:
            self.mins = X.min(dim=-2, keepdim=True)[0]
            self.ranges = X.max(dim=-2, keepdim=True)[0] - self.mins
        return (X - self.mins) / self.ranges
