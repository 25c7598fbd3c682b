import pytorch_lightning as pl
import torch
from torch import nn
from torch.nn import functional as F


class LogisticRegression(pl.LightningModule):
    def __init__(self, input_dim, num_classes, learning_rate=1e-4):
        super().__init__()
        self.learning_rate = learning_rate
        self.linear = nn.Linear(in_features=input_dim, out_features=num_classes, bias=True)

    def forward(self, x):
        x = self.linear(x)
        y_hat = F.softmax(x, dim=-1)
        return y_hat

    def training_step(self, batch, batch_idx):
        x, y = batch
        x = x.view(x.size(0), -1)
        y_hat = self(x)
        loss = F.cross_entropy(y_hat, y, reduction="sum")  # expect: TCK605
        self.log("train_loss", loss)
        return loss

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=self.learning_rate)
