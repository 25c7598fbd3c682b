import argparse
import os

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

from utils.general import init_seeds

RANK = int(os.getenv("RANK", -1))


class TinyDetector(nn.Module):
    def __init__(self, nc=80):
        super().__init__()
        self.backbone = nn.Sequential(
            nn.Conv2d(3, 32, 3, 2, 1), nn.BatchNorm2d(32), nn.SiLU(),
            nn.Conv2d(32, 64, 3, 2, 1), nn.BatchNorm2d(64), nn.SiLU(),
        )
        self.head = nn.Conv2d(64, 3 * (5 + nc), 1)

    def forward(self, x):
        return self.head(self.backbone(x))


def train(opt):
    init_seeds(opt.seed + 1 + RANK, deterministic=True)
    device = torch.device("cuda:0" if torch.cuda.is_available() else "cpu")
    model = TinyDetector().to(device)
    images = torch.rand(64, 3, opt.imgsz, opt.imgsz)
    targets = torch.rand(64, 3 * 85, opt.imgsz // 4, opt.imgsz // 4)
    loader = DataLoader(TensorDataset(images, targets), batch_size=opt.batch_size, shuffle=True, num_workers=2)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.937, nesterov=True)
    for epoch in range(opt.epochs):
        model.train()
        for imgs, tgt in loader:
            imgs, tgt = imgs.to(device), tgt.to(device)
            optimizer.zero_grad()
            loss = nn.functional.mse_loss(model(imgs), tgt)
            loss.backward()
            optimizer.step()
        print(f"epoch {epoch}: loss {loss.item():.4f}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--imgsz", type=int, default=64)
    train(parser.parse_args())
