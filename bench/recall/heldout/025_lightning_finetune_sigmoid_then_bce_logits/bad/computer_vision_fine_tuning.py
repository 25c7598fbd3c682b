import pytorch_lightning as pl
import torch
import torch.nn.functional as F
from torch import nn
from torchvision import models


class TransferLearningModel(pl.LightningModule):
    def __init__(self, lr=1e-3):
        super().__init__()
        self.lr = lr
        backbone = models.resnet50(weights=models.ResNet50_Weights.DEFAULT)
        self.feature_extractor = nn.Sequential(*list(backbone.children())[:-1])
        self.fc = nn.Sequential(nn.Linear(2048, 256), nn.ReLU(), nn.Linear(256, 1))
        self.loss_func = F.binary_cross_entropy_with_logits

    def forward(self, x):
        x = self.feature_extractor(x).flatten(1)
        x = self.fc(x)
        return torch.sigmoid(x)

    def training_step(self, batch, batch_idx):
        x, y = batch
        y_logits = self(x)
        y_true = y.view((-1, 1)).type_as(x)
        train_loss = self.loss_func(y_logits, y_true)  # expect: TCK605
        self.log("train_loss", train_loss)
        return train_loss

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=self.lr)
