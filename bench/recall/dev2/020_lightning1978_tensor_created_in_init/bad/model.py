import pytorch_lightning as pl
import torch
import torch.nn.functional as F


class LitClassifier(pl.LightningModule):
    def __init__(self, num_classes=10, smoothing=0.1):
        super().__init__()
        self.layer = torch.nn.Linear(28 * 28, num_classes)
        self.class_weights = torch.ones(num_classes)  # expect: TCK606
        self.smoothing = smoothing

    def forward(self, x):
        return self.layer(x.view(x.size(0), -1))

    def training_step(self, batch, batch_idx):
        x, y = batch
        logits = self(x)
        loss = F.cross_entropy(logits, y, weight=self.class_weights, label_smoothing=self.smoothing)
        return loss

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=1e-3)
