from typing import Any

import torch
from lightning import LightningModule
from torch import Tensor, nn
from torchmetrics import MetricCollection
from torchmetrics.classification import MulticlassAccuracy, MulticlassJaccardIndex

from model import SegModel


class SegmentationTask(LightningModule):
    def __init__(self, num_classes: int, lr: float = 1e-3, ignore_index: int = -1,
                 test_dataloaders_names: list[str] | None = None):
        super().__init__()
        self.save_hyperparameters()
        self.model = SegModel(num_classes)
        self.criterion = nn.CrossEntropyLoss(ignore_index=ignore_index)
        self.configure_metrics()

    def configure_metrics(self) -> None:
        num_classes = self.hparams["num_classes"]
        ignore_index = self.hparams["ignore_index"]
        metrics = MetricCollection(
            {
                "Accuracy": MulticlassAccuracy(num_classes=num_classes, ignore_index=ignore_index),
                "mIoU": MulticlassJaccardIndex(num_classes=num_classes, ignore_index=ignore_index),
            }
        )
        self.train_metrics = metrics.clone(prefix="train/")
        self.val_metrics = metrics.clone(prefix="val/")
        if self.hparams["test_dataloaders_names"] is not None:
            self.test_metrics = nn.ModuleList(
                [metrics.clone(prefix=f"test/{dl_name}/") for dl_name in self.hparams["test_dataloaders_names"]]
            )
        else:
            self.test_metrics = nn.ModuleList([metrics.clone(prefix="test/")])

    def forward(self, x: Tensor) -> Tensor:
        return self.model(x)

    def training_step(self, batch: Any, batch_idx: int) -> Tensor:
        x, y = batch["image"], batch["mask"]
        logits = self(x)
        loss = self.criterion(logits, y)
        self.train_metrics(logits.argmax(dim=1), y)
        self.log("train/loss", loss)
        return loss

    def validation_step(self, batch: Any, batch_idx: int) -> None:
        x, y = batch["image"], batch["mask"]
        logits = self(x)
        self.val_metrics.update(logits.argmax(dim=1), y)
        self.log("val/loss", self.criterion(logits, y))

    def on_validation_epoch_end(self) -> None:
        self.log_dict(self.val_metrics.compute())
        self.val_metrics.reset()

    def test_step(self, batch: Any, batch_idx: int, dataloader_idx: int = 0) -> None:
        x, y = batch["image"], batch["mask"]
        logits = self(x)
        self.test_metrics[dataloader_idx].update(logits.argmax(dim=1), y)

    def on_test_epoch_end(self) -> None:
        for metrics in self.test_metrics:
            self.log_dict(metrics.compute(), add_dataloader_idx=False)
            metrics.reset()

    def configure_optimizers(self):
        return torch.optim.AdamW(self.parameters(), lr=self.hparams["lr"])
