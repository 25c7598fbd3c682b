import lightning.pytorch as pl
import torch
from torch import Tensor, nn

from chemprop.nn.loss import LossFunction


class MPNN(pl.LightningModule):
    """Message passing encoder, aggregation and a predictor head that owns the training criterion."""

    def __init__(self, message_passing: nn.Module, predictor: nn.Module, init_lr: float = 1e-4):
        super().__init__()
        self.message_passing = message_passing
        self.predictor = predictor
        self.init_lr = init_lr

    @property
    def criterion(self) -> LossFunction:
        return self.predictor.criterion

    def forward(self, bmg: Tensor) -> Tensor:
        return self.predictor(self.message_passing(bmg))

    def training_step(self, batch, batch_idx):
        bmg, targets, w_s, lt_mask, gt_mask = batch
        mask = targets.isfinite()
        targets = targets.nan_to_num(nan=0.0)
        preds = self(bmg)
        loss = self.criterion(preds, targets, mask, w_s, lt_mask, gt_mask)
        self.log("train_loss", loss, prog_bar=True)
        return loss

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=self.init_lr)
