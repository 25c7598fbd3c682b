from dataclasses import dataclass, field
from typing import List, Optional


@dataclass
class BatchNormConfig:
    affine: bool = True
    momentum: float = 0.1


@dataclass
class DropoutConfig:
    rate: float = 0.1


@dataclass
class MlpConfig:
    layer_sizes: List[int] = field(default_factory=lambda: [256, 128, 1])
    batch_norm: Optional[BatchNormConfig] = None
    dropout: Optional[DropoutConfig] = None
    final_layer_activation: bool = False
