import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

from unet3d.model import UNet3D
from unet3d.trainer import UNet3DTrainer


def dice_score(output, target, eps=1e-6):
    pred = output.argmax(dim=1)
    inter = ((pred == 1) & (target == 1)).sum().float()
    return (2 * inter + eps) / ((pred == 1).sum() + (target == 1).sum() + eps)


def make_loader(n, shuffle):
    x = torch.randn(n, 1, 16, 16, 16)
    y = (x[:, 0] > 0.5).long()
    return DataLoader(TensorDataset(x, y), batch_size=2, shuffle=shuffle, num_workers=2)


def main():
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = UNet3D().to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=2e-4, weight_decay=1e-5)
    trainer = UNet3DTrainer(
        model, optimizer, nn.CrossEntropyLoss(), dice_score, device,
        loaders={"train": make_loader(16, True), "val": make_loader(8, False)},
    )
    trainer.fit()


if __name__ == "__main__":
    main()
