"""A stack of Linear layers, each followed by an activation and dropout."""
from typing import List, Union

import torch

from allennlp.common import FromParams
from allennlp.nn import Activation


class FeedForward(torch.nn.Module, FromParams):
    def __init__(
        self,
        input_dim: int,
        num_layers: int,
        hidden_dims: Union[int, List[int]],
        activations: Union[Activation, List[Activation]],
        dropout: Union[float, List[float]] = 0.0,
    ) -> None:
        super().__init__()
        if not isinstance(hidden_dims, list):
            hidden_dims = [hidden_dims] * num_layers
        if not isinstance(activations, list):
            activations = [activations] * num_layers
        if not isinstance(dropout, list):
            dropout = [dropout] * num_layers
        if not len(hidden_dims) == len(activations) == len(dropout) == num_layers:
            raise ValueError("hidden_dims, activations and dropout must have num_layers entries")

        self._activations = torch.nn.ModuleList(activations)
        input_dims = [input_dim] + hidden_dims[:-1]
        self._linear_layers = torch.nn.ModuleList(
            torch.nn.Linear(d_in, d_out) for d_in, d_out in zip(input_dims, hidden_dims)
        )
        self._dropout = torch.nn.ModuleList(torch.nn.Dropout(p=p) for p in dropout)
        self._output_dim = hidden_dims[-1]

    def get_output_dim(self) -> int:
        return self._output_dim

    def forward(self, inputs: torch.Tensor) -> torch.Tensor:
        output = inputs
        for layer, activation, dropout in zip(self._linear_layers, self._activations, self._dropout):
            output = dropout(activation(layer(output)))
        return output
