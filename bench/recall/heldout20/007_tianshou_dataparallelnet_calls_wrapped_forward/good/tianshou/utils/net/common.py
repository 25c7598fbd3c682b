from typing import Any, List, Optional, Sequence, Tuple, Type, Union

import numpy as np
import torch
from torch import nn

ModuleType = Type[nn.Module]


def miniblock(input_size: int, output_size: int = 0, norm_layer: Optional[ModuleType] = None,
              activation: Optional[ModuleType] = None) -> List[nn.Module]:
    layers: List[nn.Module] = [nn.Linear(input_size, output_size)]
    if norm_layer is not None:
        layers += [norm_layer(output_size)]
    if activation is not None:
        layers += [activation()]
    return layers


class MLP(nn.Module):
    def __init__(self, input_dim: int, output_dim: int = 0, hidden_sizes: Sequence[int] = (),
                 activation: Optional[ModuleType] = nn.ReLU, device: Optional[Union[str, torch.device]] = None):
        super().__init__()
        self.device = device
        sizes = [input_dim] + list(hidden_sizes)
        model: List[nn.Module] = []
        for in_dim, out_dim in zip(sizes[:-1], sizes[1:]):
            model += miniblock(in_dim, out_dim, None, activation)
        if output_dim > 0:
            model += [nn.Linear(sizes[-1], output_dim)]
        self.output_dim = output_dim or sizes[-1]
        self.model = nn.Sequential(*model)

    def forward(self, s: Union[np.ndarray, torch.Tensor]) -> torch.Tensor:
        if self.device is not None:
            s = torch.as_tensor(s, device=self.device, dtype=torch.float32)
        return self.model(s.flatten(1))


class Net(nn.Module):
    def __init__(self, state_shape: Union[int, Sequence[int]], action_shape: Union[int, Sequence[int]] = 0,
                 hidden_sizes: Sequence[int] = (), device: Union[str, int, torch.device] = "cpu",
                 softmax: bool = False):
        super().__init__()
        self.device = device
        self.softmax = softmax
        input_dim = int(np.prod(state_shape))
        action_dim = int(np.prod(action_shape))
        self.model = MLP(input_dim, action_dim, hidden_sizes, device=device)
        self.output_dim = self.model.output_dim

    def forward(self, s: Union[np.ndarray, torch.Tensor], state: Any = None, info: Any = None) -> Tuple[torch.Tensor, Any]:
        logits = self.model(s)
        if self.softmax:
            logits = torch.softmax(logits, dim=-1)
        return logits, state


class ActorCritic(nn.Module):
    """Groups an actor and a critic so that ``parameters()`` covers both."""

    def __init__(self, actor: nn.Module, critic: nn.Module) -> None:
        super().__init__()
        self.actor = actor
        self.critic = critic


class DataParallelNet(nn.Module):
    """DataParallel wrapper for training an agent on several GPUs.

    Only converts numpy input to a tensor before handing it to the wrapped network.
    """

    def __init__(self, net: nn.Module) -> None:
        super().__init__()
        self.net = nn.DataParallel(net)

    def forward(self, s: Union[np.ndarray, torch.Tensor], *args: Any, **kwargs: Any) -> Tuple[Any, Any]:
        if not isinstance(s, torch.Tensor):
            s = torch.as_tensor(s, dtype=torch.float32)
        return self.net(s=s.cuda(), *args, **kwargs)
