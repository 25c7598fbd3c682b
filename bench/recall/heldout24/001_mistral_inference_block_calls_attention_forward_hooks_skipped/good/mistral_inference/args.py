from dataclasses import dataclass, field
from typing import Optional


@dataclass
class MoeArgs:
    num_experts: int
    num_experts_per_tok: int


@dataclass
class TransformerArgs:
    dim: int
    n_layers: int
    head_dim: int
    hidden_dim: int
    n_heads: int
    n_kv_heads: int
    norm_eps: float
    vocab_size: int
    rope_theta: Optional[float] = None
    max_batch_size: int = 1
    moe: Optional[MoeArgs] = None

    @classmethod
    def from_dict(cls, params: dict) -> "TransformerArgs":
        params = dict(params)
        moe = params.pop("moe", None)
        known = {k: v for k, v in params.items() if k in cls.__dataclass_fields__}
        return cls(**known, moe=MoeArgs(**moe) if moe else None)
