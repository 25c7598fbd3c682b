from typing import Dict, Tuple

import torch
from lightning.pytorch import LightningModule
from torch import nn


class BaseModel(LightningModule):
    """Shared training/validation logic for the forecasting models of the package."""

    def __init__(self, loss: nn.Module = None, learning_rate: float = 1e-3):
        super().__init__()
        self.loss = loss if loss is not None else nn.L1Loss()
        self.learning_rate = learning_rate
        self.training_step_outputs = []
        self.validation_step_outputs = []

    def step(self, x: Dict[str, torch.Tensor], y: torch.Tensor, batch_idx: int) -> Tuple[dict, dict]:
        prediction = self(x)["prediction"]
        loss = self.loss(prediction, y)
        self.log(f"{'train' if self.training else 'val'}_loss", loss, on_step=self.training, on_epoch=True,
                 prog_bar=True, batch_size=y.size(0))
        log = {"loss": loss, "n_samples": x["decoder_lengths"].size(0)}
        return log, {"prediction": prediction}

    def training_step(self, batch, batch_idx):
        x, y = batch
        log, out = self.step(x, y, batch_idx)
        self.training_step_outputs.append(log)  # expect: TCK101
        return log

    def on_train_epoch_end(self):
        self.on_epoch_end(self.training_step_outputs)
        self.training_step_outputs.clear()

    def validation_step(self, batch, batch_idx):
        x, y = batch
        log, out = self.step(x, y, batch_idx)
        self.validation_step_outputs.append(log)
        return log

    def on_validation_epoch_end(self):
        self.on_epoch_end(self.validation_step_outputs)
        self.validation_step_outputs.clear()

    def on_epoch_end(self, outputs):
        if not outputs:
            return
        total = sum(o["n_samples"] for o in outputs)
        mean_loss = sum(o["loss"] * o["n_samples"] for o in outputs) / total
        self.log("epoch_mean_loss", mean_loss)

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=self.learning_rate)
