from typing import Optional

import torch
import torch.nn as nn
from lightning.pytorch import LightningModule


class BaseModel(LightningModule):
    """Skeleton base class for forecasting models trained with Lightning.

    Parameters
    ----------
    loss : nn.Module
        Training loss.
    logging_metrics : list of nn.Module, optional
        Extra metrics (torchmetrics objects) logged during validation.
    """

    def __init__(
        self,
        loss: nn.Module,
        logging_metrics: Optional[list[nn.Module]] = None,
        optimizer: str = "adam",
        learning_rate: float = 1e-3,
    ):
        super().__init__()
        self.loss = loss
        self.logging_metrics = logging_metrics if logging_metrics is not None else []  # expect: TCK601
        self.optimizer_name = optimizer
        self.learning_rate = learning_rate

    def forward(self, x: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
        raise NotImplementedError

    def training_step(self, batch, batch_idx):
        x, y = batch
        y_hat = self(x)["prediction"]
        loss = self.loss(y_hat, y)
        self.log("train_loss", loss, on_step=True, on_epoch=True, prog_bar=True)
        return loss

    def validation_step(self, batch, batch_idx):
        x, y = batch
        y_hat = self(x)["prediction"]
        loss = self.loss(y_hat, y)
        self.log("val_loss", loss, on_epoch=True, prog_bar=True)
        for metric in self.logging_metrics:
            metric.update(y_hat.flatten(), y.flatten())
        return loss

    def on_validation_epoch_end(self):
        for metric in self.logging_metrics:
            self.log(f"val_{type(metric).__name__}", metric.compute())
            metric.reset()

    def configure_optimizers(self):
        if self.optimizer_name == "adam":
            return torch.optim.Adam(self.parameters(), lr=self.learning_rate)
        return torch.optim.SGD(self.parameters(), lr=self.learning_rate)
