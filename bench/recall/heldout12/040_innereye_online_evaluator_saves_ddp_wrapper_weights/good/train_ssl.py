import pytorch_lightning as pl
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

from ssl_online import SSLOnlineEvaluator


class SimCLRModule(pl.LightningModule):
    def __init__(self, z_dim=128):
        super().__init__()
        self.encoder = nn.Sequential(nn.Conv2d(1, 32, 3, 2, 1), nn.ReLU(), nn.Conv2d(32, z_dim, 3, 2, 1),
                                     nn.AdaptiveAvgPool2d(1))
        self.projector = nn.Linear(z_dim, 64)

    def training_step(self, batch, batch_idx):
        x, _ = batch
        z1 = F.normalize(self.projector(self.encoder(x + 0.1 * torch.randn_like(x)).flatten(1)), dim=1)
        z2 = F.normalize(self.projector(self.encoder(x + 0.1 * torch.randn_like(x)).flatten(1)), dim=1)
        logits = z1 @ z2.t() / 0.1
        loss = F.cross_entropy(logits, torch.arange(x.size(0), device=self.device))
        self.log("train/loss", loss)
        return loss

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=1e-3)


def main():
    data = TensorDataset(torch.randn(2048, 1, 64, 64), torch.randint(0, 2, (2048,)))
    loader = DataLoader(data, batch_size=64, shuffle=True)
    trainer = pl.Trainer(max_epochs=10, accelerator="gpu", devices=2, strategy="ddp",
                         callbacks=[SSLOnlineEvaluator(z_dim=128, num_classes=2)])
    trainer.fit(SimCLRModule(), loader)


if __name__ == "__main__":
    main()
