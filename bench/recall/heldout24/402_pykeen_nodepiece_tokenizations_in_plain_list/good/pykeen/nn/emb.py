from abc import ABC, abstractmethod
from typing import Optional, Sequence, Tuple

import torch
from torch import nn


class RepresentationModule(nn.Module, ABC):
    """Maps integer IDs in [0, max_id) to tensors of a fixed shape."""

    max_id: int
    shape: Tuple[int, ...]

    def __init__(self, max_id: int, shape: Sequence[int]):
        super().__init__()
        self.max_id = max_id
        self.shape = tuple(shape)

    @abstractmethod
    def forward(self, indices: Optional[torch.LongTensor] = None) -> torch.FloatTensor:
        """Return the representations of ``indices`` (all of them for ``None``)."""

    def reset_parameters(self) -> None:
        """Reset the module's parameters."""


class Embedding(RepresentationModule):
    """A plain lookup table."""

    def __init__(self, max_id: int, embedding_dim: int):
        super().__init__(max_id=max_id, shape=(embedding_dim,))
        self._embeddings = nn.Embedding(max_id, embedding_dim)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        nn.init.xavier_uniform_(self._embeddings.weight)

    def forward(self, indices: Optional[torch.LongTensor] = None) -> torch.FloatTensor:
        if indices is None:
            return self._embeddings.weight
        return self._embeddings(indices)
