from abc import ABC, abstractmethod

import numpy as np
from torch import nn


class BasePolicy(ABC, nn.Module):
    """All policies are modules: `torch.save(policy.state_dict(), ...)` works on any of them."""

    def __init__(self, **kwargs):
        super().__init__()
        self.observation_space = kwargs.get("observation_space")
        self.action_space = kwargs.get("action_space")

    def process_fn(self, batch, buffer, indice: np.ndarray):
        return batch

    @abstractmethod
    def forward(self, batch, state=None, **kwargs):
        ...

    @abstractmethod
    def learn(self, batch, **kwargs):
        ...
