import logging

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset

from losses import WeightedDiceBCE
from train_one_epoch import train_one_epoch

logging.basicConfig(level=logging.INFO)
logger = logging.getLogger("train")


class SegDataset(Dataset):
    def __init__(self, n):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, idx):
        return {"image": torch.randn(3, 224, 224), "label": (torch.rand(1, 224, 224) > 0.5).float()}


class TinyUNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.enc = nn.Sequential(nn.Conv2d(3, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU())
        self.dec = nn.Conv2d(32, 1, 1)

    def forward(self, x):
        return self.dec(self.enc(x))


def main(epochs=100):
    model = TinyUNet().cuda()
    criterion = WeightedDiceBCE()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    lr_scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=epochs)
    train_loader = DataLoader(SegDataset(400), batch_size=4, shuffle=True)
    val_loader = DataLoader(SegDataset(80), batch_size=4)

    best_dice = 0.0
    for epoch in range(epochs):
        model.train()
        train_one_epoch(train_loader, model, criterion, optimizer, epoch, lr_scheduler, logger)

        model.eval()
        with torch.no_grad():
            val_loss, val_dice = train_one_epoch(val_loader, model, criterion, optimizer, epoch, None, logger)
        if val_dice > best_dice:
            best_dice = val_dice
            torch.save({"epoch": epoch, "state_dict": model.state_dict()}, "best_model.pth")


if __name__ == "__main__":
    main()
