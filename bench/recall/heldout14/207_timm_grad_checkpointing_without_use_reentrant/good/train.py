import torch
import torch.nn as nn
import torch.utils.checkpoint
from torch.utils.data import DataLoader

from vision_transformer import VisionTransformer


class ConvStage(nn.Module):
    """Convolutional stem stage of a hybrid backbone, checkpointed block by block."""

    def __init__(self, chs, depth):
        super().__init__()
        self.blocks = nn.ModuleList(
            nn.Sequential(nn.Conv2d(chs, chs, 3, padding=1), nn.GroupNorm(8, chs), nn.ReLU())
            for _ in range(depth)
        )
        self.grad_checkpointing = False

    def forward(self, x):
        for blk in self.blocks:
            if self.grad_checkpointing:
                x = torch.utils.checkpoint.checkpoint(blk, x, use_reentrant=False)
            else:
                x = blk(x)
        return x


def train_one_epoch(model, loader, optimizer, device):
    model.train()
    criterion = nn.CrossEntropyLoss(label_smoothing=0.1)
    for images, targets in loader:
        images, targets = images.to(device), targets.to(device)
        loss = criterion(model(images), targets)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()


def main(dataset, epochs=300):
    device = torch.device("cuda")
    model = VisionTransformer(num_classes=1000).to(device)
    model.set_grad_checkpointing(True)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.05)
    loader = DataLoader(dataset, batch_size=256, shuffle=True, num_workers=8, drop_last=True)
    for _ in range(epochs):
        train_one_epoch(model, loader, optimizer, device)
