from typing import Any, Dict, Optional, Sequence, Tuple, Union

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from tianshou.utils.net.common import MLP


class Actor(nn.Module):
    def __init__(self, preprocess_net: nn.Module, action_shape: Sequence[int], hidden_sizes: Sequence[int] = (),
                 softmax_output: bool = True, device: Union[str, int, torch.device] = "cpu"):
        super().__init__()
        self.device = device
        self.preprocess = preprocess_net
        self.output_dim = int(np.prod(action_shape))
        self.last = MLP(preprocess_net.output_dim, self.output_dim, hidden_sizes, device=self.device)
        self.softmax_output = softmax_output

    def forward(self, s: Union[np.ndarray, torch.Tensor], state: Any = None,
                info: Dict[str, Any] = {}) -> Tuple[torch.Tensor, Any]:
        logits, h = self.preprocess(s, state)
        logits = self.last(logits)
        if self.softmax_output:
            logits = F.softmax(logits, dim=-1)
        return logits, h


class Critic(nn.Module):
    def __init__(self, preprocess_net: nn.Module, hidden_sizes: Sequence[int] = (), last_size: int = 1,
                 device: Optional[Union[str, int, torch.device]] = "cpu"):
        super().__init__()
        self.device = device
        self.preprocess = preprocess_net
        self.last = MLP(preprocess_net.output_dim, last_size, hidden_sizes, device=self.device)

    def forward(self, s: Union[np.ndarray, torch.Tensor], **kwargs: Any) -> torch.Tensor:
        logits, _ = self.preprocess(s, state=kwargs.get("state", None))
        return self.last(logits)
