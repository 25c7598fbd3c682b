import abc

import torch
import torch.nn.functional as F


class ComposerModel(torch.nn.Module, abc.ABC):
    """A module that also knows how to compute its loss and validation outputs."""

    @abc.abstractmethod
    def forward(self, batch):
        pass

    def loss(self, outputs, batch):
        _, targets = batch
        return F.cross_entropy(outputs, targets)

    def validate(self, batch):
        inputs, targets = batch
        return self.forward(batch), targets


class ComposerClassifier(ComposerModel):
    def __init__(self, module: torch.nn.Module):
        super().__init__()
        self.module = module

    def forward(self, batch):
        inputs, _ = batch
        return self.module(inputs)
