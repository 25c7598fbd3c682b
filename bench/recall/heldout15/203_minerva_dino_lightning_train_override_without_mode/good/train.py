import lightning as L
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

from dino import DINO


def make_loader(n):
    global_views = torch.randn(n, 3, 32, 32)
    local_views = global_views + 0.1 * torch.randn_like(global_views)
    return DataLoader(TensorDataset(global_views, local_views), batch_size=16, num_workers=2)


if __name__ == "__main__":
    backbone = nn.Sequential(
        nn.Conv2d(3, 32, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten()
    )
    model = DINO(backbone, embed_dim=32)
    trainer = L.Trainer(max_epochs=2, limit_val_batches=2)
    trainer.fit(model, make_loader(128), make_loader(32))
