from dataclasses import dataclass
from typing import Optional

import pytorch_lightning as pl
import torch
import torch.nn as nn


@dataclass
class SynthConfig:
    batch_size: int = 128
    sample_rate: int = 44100
    buffer_size_seconds: float = 4.0
    reproducible: bool = True
    train_fraction: float = 0.9


class VCO(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.cfg = cfg
        self.pitch = nn.Parameter(torch.rand(cfg.batch_size))
        self.tuning = nn.Parameter(torch.rand(cfg.batch_size))

    def forward(self):
        n = int(self.cfg.sample_rate * self.cfg.buffer_size_seconds)
        t = torch.arange(n, device=self.pitch.device) / self.cfg.sample_rate
        freq = 20.0 * 2 ** (10 * self.pitch[:, None])
        return torch.sin(2 * torch.pi * freq * t * (1 + 0.01 * self.tuning[:, None]))


class Voice(pl.LightningModule):
    """A batched synth: one batch of random patches per batch index."""

    def __init__(self, cfg: Optional[SynthConfig] = None):
        super().__init__()
        self.cfg = cfg or SynthConfig()
        self.batch_size = self.cfg.batch_size
        self.vco = VCO(self.cfg)

    def randomize(self, seed):
        gen = torch.Generator(device="cpu").manual_seed(seed)
        with torch.no_grad():
            for p in self.parameters():
                p.copy_(torch.rand(p.shape, generator=gen))

    def _batch_idx_to_is_train(self, batch_idx):
        if batch_idx is None:
            return None
        idxs = torch.arange(self.batch_size * batch_idx, self.batch_size * (batch_idx + 1), device=self.device)
        assert len(idxs) == self.batch_size
        # Every tenth patch (by global index) is held out for testing.
        return (idxs % 10) < int(10 * self.cfg.train_fraction)

    def forward(self, batch_idx=None):
        if self.cfg.reproducible and batch_idx is None:
            raise ValueError("Reproducible mode is on, pass a batch index")
        is_train = self._batch_idx_to_is_train(batch_idx)
        with torch.no_grad():
            if batch_idx is not None:
                self.randomize(seed=batch_idx)
            params = torch.stack([p.detach() for p in self.parameters()], dim=1)
            return self.vco(), params, is_train
