import json
from pathlib import Path
from typing import List, Optional, Union

import safetensors.torch
import torch
from torch import nn

from mistral_inference.args import TransformerArgs
from mistral_inference.model import ModelBase
from mistral_inference.transformer_layers import RMSNorm, TransformerBlock


def rope_frequencies(head_dim: int, max_len: int, theta: float) -> torch.Tensor:
    inv = 1.0 / (theta ** (torch.arange(0, head_dim, 2).float() / head_dim))
    angles = torch.outer(torch.arange(max_len).float(), inv)
    return torch.polar(torch.ones_like(angles), angles)


class Transformer(ModelBase):
    def __init__(self, args: TransformerArgs):
        super().__init__()
        self.args = args
        self.tok_embeddings = nn.Embedding(args.vocab_size, args.dim)
        self.layers = nn.ModuleDict({
            str(i): TransformerBlock(dim=args.dim, hidden_dim=args.hidden_dim, n_heads=args.n_heads,
                                     n_kv_heads=args.n_kv_heads, head_dim=args.head_dim,
                                     norm_eps=args.norm_eps, moe=args.moe)
            for i in range(args.n_layers)
        })
        self.norm = RMSNorm(args.dim, eps=args.norm_eps)
        self.output = nn.Linear(args.dim, args.vocab_size, bias=False)
        self._freqs: Optional[torch.Tensor] = None

    @property
    def device(self) -> torch.device:
        return next(self.parameters()).device

    def freqs_for(self, positions: torch.Tensor) -> torch.Tensor:
        if self._freqs is None or self._freqs.device != self.device:
            self._freqs = rope_frequencies(self.args.head_dim, 32_768, self.args.rope_theta or 1e6).to(self.device)
        return self._freqs[positions]

    def forward(self, input_ids: torch.Tensor, seqlens: List[int]) -> torch.Tensor:
        positions = torch.cat([torch.arange(n) for n in seqlens]).to(self.device)
        freqs = self.freqs_for(positions)
        h = self.tok_embeddings(input_ids)
        for layer in self.layers.values():
            h = layer(h, freqs)
        return self.output(self.norm(h)).float()

    @staticmethod
    def from_folder(folder: Union[Path, str], max_batch_size: int = 1,
                    device: Union[torch.device, str] = "cuda",
                    dtype: Optional[torch.dtype] = None) -> "Transformer":
        with open(Path(folder) / "params.json") as f:
            args = TransformerArgs.from_dict(json.load(f))
        args.max_batch_size = max_batch_size
        with torch.device("meta"):
            model = Transformer(args)
        weights = safetensors.torch.load_file(str(Path(folder) / "consolidated.safetensors"))
        model.load_state_dict(weights, assign=True, strict=True)
        return model.to(device=device, dtype=dtype)
