from abc import ABC, abstractmethod
from typing import Any, Dict, Generic, Optional, TypeVar

import torch
from torch import nn

InputData = TypeVar("InputData")
TensorizedData = TypeVar("TensorizedData")


class BaseComponent(ABC, nn.Module, Generic[InputData, TensorizedData]):
    """A neural network component that loads its own metadata and tensorizes its own input."""

    def __init__(self, name: str, hyperparameters: Optional[Dict[str, Any]] = None):
        super(BaseComponent, self).__init__()
        self.__name = name
        self.__hyperparameters = dict(hyperparameters or {})

    @property
    def name(self) -> str:
        return self.__name

    @abstractmethod
    def load_data_from_sample(self, data_to_load: InputData) -> Optional[TensorizedData]:
        ...

    @abstractmethod
    def initialize_minibatch(self) -> Dict[str, Any]:
        ...
