import pytorch_lightning as pl
import torch
import torch.nn.functional as F

from model import Conv1DClassifier


class AudioClassifier(pl.LightningModule):
    def __init__(self, num_classes):
        super().__init__()
        self.model = Conv1DClassifier(num_classes)

    def forward(self, x):
        return self.model(x)

    def training_step(self, batch, batch_idx):
        x, y = batch
        return F.cross_entropy(self(x), y)

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=1e-3)
