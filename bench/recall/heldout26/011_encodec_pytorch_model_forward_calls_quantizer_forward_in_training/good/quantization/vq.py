"""Residual vector quantizer with a bandwidth-dependent number of codebooks (simplified)."""
import math
import typing as tp
from dataclasses import dataclass, field

import torch
from torch import nn


@dataclass
class QuantizedResult:
    quantized: torch.Tensor
    codes: torch.Tensor
    bandwidth: torch.Tensor
    penalty: tp.Optional[torch.Tensor] = None
    metrics: dict = field(default_factory=dict)


class ResidualVectorQuantizer(nn.Module):
    def __init__(self, dimension: int = 256, n_q: int = 8, bins: int = 1024):
        super().__init__()
        self.n_q = n_q
        self.dimension = dimension
        self.bins = bins
        self.codebooks = nn.Parameter(torch.randn(n_q, bins, dimension))

    def get_num_quantizers_for_bandwidth(self, sample_rate: int, bandwidth: tp.Optional[float] = None) -> int:
        bw_per_q = math.log2(self.bins) * sample_rate
        n_q = self.n_q
        if bandwidth and bandwidth > 0.0:
            n_q = int(max(1, math.floor(bandwidth * 1000 / bw_per_q)))
        return n_q

    def forward(self, x: torch.Tensor, sample_rate: int, bandwidth: tp.Optional[float] = None) -> QuantizedResult:
        """Quantize `x` [B, D, T] with as many residual codebooks as the bandwidth allows."""
        n_q = self.get_num_quantizers_for_bandwidth(sample_rate, bandwidth)
        residual = x.transpose(1, 2)
        quantized = torch.zeros_like(residual)
        codes, commit = [], 0.0
        for q in range(n_q):
            dist = torch.cdist(residual, self.codebooks[q].unsqueeze(0).expand(residual.size(0), -1, -1))
            idx = dist.argmin(-1)
            chosen = self.codebooks[q][idx]
            commit = commit + (residual.detach() - chosen).pow(2).mean() + (residual - chosen.detach()).pow(2).mean()
            # straight-through estimator
            step = residual + (chosen - residual).detach()
            quantized = quantized + step
            residual = residual - chosen.detach()
            codes.append(idx)
        bw = torch.tensor(n_q * math.log2(self.bins) * sample_rate / 1000, device=x.device)
        return QuantizedResult(quantized.transpose(1, 2), torch.stack(codes), bw, penalty=commit / n_q)

    def encode(self, x: torch.Tensor, sample_rate: int, bandwidth: tp.Optional[float] = None) -> torch.Tensor:
        return self.forward(x, sample_rate, bandwidth).codes

    def decode(self, codes: torch.Tensor) -> torch.Tensor:
        out = sum(self.codebooks[q][codes[q]] for q in range(codes.size(0)))
        return out.transpose(1, 2)
