import lightning as pl
from torch import Tensor, nn, optim

from model import BetaModel


class BetaPredictor(pl.LightningModule):
    def __init__(self, model: BetaModel, lr: float) -> None:
        super().__init__()
        self.lr = lr
        self.loss = nn.SmoothL1Loss()
        self.model = model

    def configure_optimizers(self):
        optimizer = optim.AdamW(self.model.parameters(), lr=self.lr)
        lr_scheduler = optim.lr_scheduler.StepLR(optimizer, step_size=25, gamma=0.99)
        return [optimizer], [lr_scheduler]

    def training_step(self, batch: list[Tensor]) -> Tensor:
        x, y = batch
        pred = self.model(x)
        loss = self.loss(pred, y)
        self.log("train/loss", loss)
        return loss

    def validation_step(self, batch: list[Tensor]) -> Tensor:
        x, y = batch
        pred = self.model(x)
        loss = self.loss(pred, y)
        self.log("val/loss", loss)
        return loss

    def predict_step(self, batch: list[Tensor]) -> Tensor:
        x, _ = batch
        pred = self.model(x)
        return pred[:, -1]
