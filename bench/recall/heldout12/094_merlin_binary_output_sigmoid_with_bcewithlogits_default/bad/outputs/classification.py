from typing import Optional, Sequence

from torch import nn
from torchmetrics import AUROC, Accuracy, Metric


class ModelOutput(nn.Sequential):
    def __init__(self, *layers: nn.Module, loss: nn.Module, metrics: Sequence[Metric] = ()):
        super().__init__(*layers)
        self.loss = loss
        self.metrics = nn.ModuleList(metrics)


class BinaryOutput(ModelOutput):
    DEFAULT_LOSS_CLS = nn.BCEWithLogitsLoss
    DEFAULT_METRICS_CLS = (Accuracy, AUROC)

    def __init__(self, loss: Optional[nn.Module] = None, metrics: Sequence[Metric] = ()):
        super().__init__(
            nn.LazyLinear(1),
            nn.Sigmoid(),
            loss=loss or self.DEFAULT_LOSS_CLS(),
            metrics=metrics or [m(task="binary") for m in self.DEFAULT_METRICS_CLS],
        )
