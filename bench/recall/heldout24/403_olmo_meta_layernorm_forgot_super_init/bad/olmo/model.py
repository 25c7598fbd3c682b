"""Stripped-down OLMo model used to debug FSDP initialisation from the meta device."""

from __future__ import annotations

import logging

import torch
import torch.nn as nn
import torch.nn.functional as F

log = logging.getLogger(__name__)


class LayerNorm(nn.Module):
    """LayerNorm that can run its reduction in the autocast precision."""

    def __init__(self, low_precision: bool = False):  # expect: TCK603
        self.normalized_shape = (4096,)
        self.eps = 1e-05
        self.weight = nn.Parameter(torch.ones(self.normalized_shape, device="meta"))
        self.register_parameter("bias", None)
        self.low_precision = low_precision

    def _maybe_downcast(self, tensor):
        if tensor is not None and torch.is_autocast_enabled() and tensor.device.type == "cuda":
            return tensor.to(dtype=torch.get_autocast_gpu_dtype())
        return tensor

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if not self.low_precision:
            return F.layer_norm(x, self.normalized_shape, self.weight, self.bias, self.eps)
        with torch.autocast(enabled=False, device_type=x.device.type):
            return F.layer_norm(self._maybe_downcast(x), self.normalized_shape,
                                self._maybe_downcast(self.weight), self._maybe_downcast(self.bias), self.eps)

    def reset_parameters(self):
        nn.init.ones_(self.weight)
        if self.bias is not None:
            nn.init.zeros_(self.bias)


class Olmo(nn.Module):
    def __init__(self):
        super().__init__()
        self.transformer = nn.ModuleDict(dict(
            wte=nn.Embedding(50304, 4096, device="meta"),
            emb_drop=nn.Dropout(0.0),
            ln_f=LayerNorm(low_precision=True),
        ))
        # FSDP calls reset_parameters() on each module when it materialises it

    def reset_parameters(self):
        log.info("Initializing model parameters...")
        nn.init.normal_(self.transformer.wte.weight, std=0.02)
        self.transformer.ln_f.reset_parameters()

    def forward(self, input_ids: torch.LongTensor) -> torch.Tensor:
        x = self.transformer.emb_drop(self.transformer.wte(input_ids))
        x = self.transformer.ln_f(x)
        return F.linear(x, self.transformer.wte.weight)
