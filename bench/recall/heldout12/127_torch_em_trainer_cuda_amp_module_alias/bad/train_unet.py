import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

from default_trainer import DefaultTrainer


class DiceLoss(nn.Module):
    def forward(self, pred, target, eps=1e-6):
        pred = torch.sigmoid(pred)
        num = 2 * (pred * target).sum(dim=(2, 3))
        den = (pred * pred).sum(dim=(2, 3)) + (target * target).sum(dim=(2, 3))
        return 1 - (num / den.clamp(min=eps)).mean()


def small_unet():
    return nn.Sequential(
        nn.Conv2d(1, 32, 3, padding=1), nn.ReLU(), nn.Conv2d(32, 32, 3, padding=1), nn.ReLU(),
        nn.Conv2d(32, 1, 1),
    )


def main():
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    images, masks = torch.rand(256, 1, 128, 128), (torch.rand(256, 1, 128, 128) > 0.5).float()
    train_loader = DataLoader(TensorDataset(images[:224], masks[:224]), batch_size=8, shuffle=True)
    val_loader = DataLoader(TensorDataset(images[224:], masks[224:]), batch_size=8)
    model = small_unet()
    trainer = DefaultTrainer(model, train_loader, val_loader, DiceLoss(), DiceLoss(),
                             torch.optim.AdamW(model.parameters(), lr=1e-4), device, mixed_precision=True)
    trainer.fit(iterations=1000)


if __name__ == "__main__":
    main()
