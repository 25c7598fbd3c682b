from abc import ABC, abstractmethod
from typing import List

import torch
import torch.nn as nn


class ModelBase(nn.Module, ABC):
    """Common base of the inference models (a plain nn.Module with a few abstract members)."""

    def __init__(self) -> None:
        super().__init__()

    @property
    @abstractmethod
    def device(self) -> torch.device:
        ...

    @abstractmethod
    def forward(self, input_ids: torch.Tensor, seqlens: List[int]) -> torch.Tensor:
        ...
