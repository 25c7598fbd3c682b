import pytorch_lightning as pl
import torch
import torch.nn as nn
import torch.nn.functional as F


class FeatureExtractor(nn.Module):
    def __init__(self, in_features=150, hidden=256):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(in_features, hidden), nn.ReLU(), nn.Linear(hidden, hidden))

    def forward(self, x):
        return self.net(x)


class GlossTranslationModel(pl.LightningModule):
    def __init__(self, classification_heads, feature_size=256, lr=1e-4):
        super().__init__()
        self.classification_heads = classification_heads
        self.lr = lr
        self.feature_extractor = FeatureExtractor(hidden=feature_size)
        self.cls_head = nn.ModuleList()
        self.loss_weights = []
        for value in classification_heads.values():
            self.cls_head.append(nn.Linear(feature_size, value["num_class"]))
            self.loss_weights.append(value["loss_weight"])

    def forward(self, x):
        x = self.feature_extractor(x)
        predictions = []
        for head in self.cls_head:
            predictions.append(head(x))
        return predictions

    def training_step(self, batch, batch_idx):
        x, targets = batch
        predictions = self(x)
        loss = sum(
            weight * F.cross_entropy(pred, target)
            for weight, pred, target in zip(self.loss_weights, predictions, targets)
        )
        self.log("train_loss", loss)
        return loss

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=self.lr)
