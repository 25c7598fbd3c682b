import torch.nn as nn


class Module(nn.Module):
    """Project-wide base class: plain nn.Module with a parameter counter."""

    def num_parameters(self):
        return sum(p.numel() for p in self.parameters())
