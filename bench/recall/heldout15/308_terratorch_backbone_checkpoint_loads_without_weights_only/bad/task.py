"""Semantic segmentation on top of the backbone, trained with Lightning."""
import os

import lightning.pytorch as pl
import torch
import torch.nn as nn
import torch.nn.functional as F

from prithvi_vit import prithvi_vit_100


class UperLikeDecoder(nn.Module):
    def __init__(self, embed_dim=768, num_classes=10):
        super().__init__()
        self.head = nn.Sequential(
            nn.Conv2d(embed_dim, 256, 3, padding=1), nn.BatchNorm2d(256), nn.ReLU(),
            nn.Conv2d(256, num_classes, 1),
        )

    def forward(self, tokens, hw):
        b, n, c = tokens.shape
        grid = tokens.transpose(1, 2).reshape(b, c, *hw)
        return self.head(grid)


class SegmentationTask(pl.LightningModule):
    def __init__(self, num_classes=10, ckpt_path=None, lr=1e-4):
        super().__init__()
        self.save_hyperparameters()
        self.backbone = prithvi_vit_100(pretrained=ckpt_path is not None, ckpt_path=ckpt_path)
        self.decoder = UperLikeDecoder(768, num_classes)

    def forward(self, x):
        tokens = self.backbone.forward_features(x)[:, 1:]
        side = x.shape[-1] // 16
        logits = self.decoder(tokens, (side, side))
        return F.interpolate(logits, size=x.shape[-2:], mode="bilinear", align_corners=False)

    def training_step(self, batch, batch_idx):
        loss = F.cross_entropy(self(batch["image"]), batch["mask"], ignore_index=-1)
        self.log("train/loss", loss)
        return loss

    def validation_step(self, batch, batch_idx):
        self.log("val/loss", F.cross_entropy(self(batch["image"]), batch["mask"], ignore_index=-1))

    def configure_optimizers(self):
        return torch.optim.AdamW(self.parameters(), lr=self.hparams.lr, weight_decay=0.05)


def load_finetuned(save_dir: str, name: str = "segmentation.pt", num_classes: int = 10) -> SegmentationTask:
    task = SegmentationTask(num_classes=num_classes)
    task.load_state_dict(torch.load(os.path.join(save_dir, name), map_location="cpu"))  # expect: TCK401
    return task.eval()
