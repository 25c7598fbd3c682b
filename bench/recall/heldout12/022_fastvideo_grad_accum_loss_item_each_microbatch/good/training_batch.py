from dataclasses import dataclass, field
from typing import Optional

import torch


@dataclass
class TrainingBatch:
    latents: Optional[torch.Tensor] = None
    encoder_hidden_states: Optional[torch.Tensor] = None
    encoder_attention_mask: Optional[torch.Tensor] = None
    timesteps: Optional[torch.Tensor] = None
    total_loss: float = 0.0
    grad_norm: Optional[float] = None
    extra: dict = field(default_factory=dict)
