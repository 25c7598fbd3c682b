from typing import Dict, Tuple

import torch
from torch import nn


class AlignTTS(nn.Module):
    """A small text-to-spectrogram model written for the Trainer's model API."""

    def __init__(self, num_chars=130, hidden=256, out_channels=80):
        super().__init__()
        self.emb = nn.Embedding(num_chars, hidden)
        self.encoder = nn.GRU(hidden, hidden, batch_first=True)
        self.proj = nn.Linear(hidden, out_channels)

    def inference(self, text: torch.Tensor, text_lengths: torch.Tensor) -> Dict:
        h, _ = self.encoder(self.emb(text))
        return {"model_outputs": self.proj(h)}

    def forward(self, batch: Dict, criterion: nn.Module) -> Tuple[Dict, Dict]:
        # the training step is the module's forward, so a DistributedDataParallel wrapper
        # runs it through its own forward and all-reduces the gradients of the backward
        return self.train_step(batch, criterion)

    def format_batch(self, batch: Dict) -> Dict:
        return {
            "text_input": batch["text"],
            "text_lengths": batch["text_lengths"],
            "mel_input": batch["mel"][:, : batch["text"].shape[1]],
        }

    def train_step(self, batch: Dict, criterion: nn.Module) -> Tuple[Dict, Dict]:
        outputs = self.inference(batch["text_input"], batch["text_lengths"])
        loss = criterion(outputs["model_outputs"], batch["mel_input"])
        return outputs, {"loss": loss}

    def get_criterion(self) -> nn.Module:
        return nn.L1Loss()
