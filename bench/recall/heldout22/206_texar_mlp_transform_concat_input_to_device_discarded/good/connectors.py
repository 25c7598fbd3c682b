from typing import Any, Callable, List, Optional, Sequence, Union

import numpy as np
import torch
from torch import nn

OutputSize = Union[int, torch.Size, Sequence[Union[int, torch.Size]]]


def _flatten(structure) -> List[Any]:
    if isinstance(structure, (list, tuple)):
        return [leaf for item in structure for leaf in _flatten(item)]
    return [structure]


def _pack_like(structure, flat: List[Any]):
    if isinstance(structure, (list, tuple)):
        packed, rest = [], flat
        for item in structure:
            n = len(_flatten(item))
            packed.append(_pack_like(item, rest[:n]))
            rest = rest[n:]
        return type(structure)(packed)
    return flat[0]


def _sum_output_size(output_size: OutputSize) -> int:
    total = 0
    for size in _flatten(output_size):
        total += int(np.prod(size)) if isinstance(size, torch.Size) else int(size)
    return total


def _mlp_transform(inputs, output_size: OutputSize, linear_layer: nn.Linear,
                   activation_fn: Optional[Callable] = None, device: Optional[torch.device] = None) -> Any:
    """Sends (a nest of) tensors through one fully-connected layer and splits the result to `output_size`."""
    flat_input = _flatten(inputs)
    batch_size = 1 if flat_input[0].dim() == 1 else flat_input[0].size(0)
    flat_input = [x.view(-1, x.size(-1)) for x in flat_input]
    concat_input = torch.cat(flat_input, 0)

    flat_output_size = _flatten(output_size)
    if isinstance(flat_output_size[0], torch.Size):
        size_list = [int(np.prod(shape)) for shape in flat_output_size]
    else:
        size_list = list(flat_output_size)

    if device is not None:
        concat_input = concat_input.to(device)

    fc_output = linear_layer(concat_input)
    if activation_fn is not None:
        fc_output = activation_fn(fc_output)

    flat_output = list(torch.split(fc_output, size_list, dim=1))
    for i, out in enumerate(flat_output):
        flat_output[i] = torch.squeeze(out.view(batch_size, -1, out.size(-1)), 1)
    if isinstance(flat_output_size[0], torch.Size):
        flat_output = [torch.reshape(out, (-1, *shape)) for out, shape in zip(flat_output, flat_output_size)]
    return _pack_like(output_size, flat_output)


class MLPTransformConnector(nn.Module):
    """Transforms inputs with an MLP layer into a (nest of) output sizes, e.g. an RNN's initial state."""

    def __init__(self, output_size: OutputSize, linear_layer_dim: int, activation_fn: Optional[Callable] = None,
                 device: Optional[torch.device] = None):
        super().__init__()
        self.device = device
        self._output_size = output_size
        self._linear_layer = nn.Linear(linear_layer_dim, _sum_output_size(output_size))
        self._activation_fn = activation_fn

    def forward(self, inputs):
        return _mlp_transform(inputs, self._output_size, self._linear_layer, self._activation_fn, device=self.device)
