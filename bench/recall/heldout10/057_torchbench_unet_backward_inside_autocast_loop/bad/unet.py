import torch
import torch.nn as nn
import torch.nn.functional as F


class DoubleConv(nn.Sequential):
    def __init__(self, in_ch, out_ch):
        super().__init__(
            nn.Conv2d(in_ch, out_ch, 3, padding=1, bias=False),
            nn.BatchNorm2d(out_ch),
            nn.ReLU(inplace=True),
            nn.Conv2d(out_ch, out_ch, 3, padding=1, bias=False),
            nn.BatchNorm2d(out_ch),
            nn.ReLU(inplace=True),
        )


class UNet(nn.Module):
    def __init__(self, n_channels=3, n_classes=2, base=16):
        super().__init__()
        self.n_classes = n_classes
        self.inc = DoubleConv(n_channels, base)
        self.down1 = nn.Sequential(nn.MaxPool2d(2), DoubleConv(base, base * 2))
        self.down2 = nn.Sequential(nn.MaxPool2d(2), DoubleConv(base * 2, base * 4))
        self.up1 = nn.ConvTranspose2d(base * 4, base * 2, 2, stride=2)
        self.conv1 = DoubleConv(base * 4, base * 2)
        self.up2 = nn.ConvTranspose2d(base * 2, base, 2, stride=2)
        self.conv2 = DoubleConv(base * 2, base)
        self.outc = nn.Conv2d(base, n_classes, 1)

    def forward(self, x):
        x1 = self.inc(x)
        x2 = self.down1(x1)
        x3 = self.down2(x2)
        y = self.conv1(torch.cat([self.up1(x3), x2], dim=1))
        y = self.conv2(torch.cat([self.up2(y), x1], dim=1))
        return self.outc(y)


def dice_loss(probs, target_one_hot, eps=1e-6):
    inter = (probs * target_one_hot).sum(dim=(2, 3))
    sets_sum = probs.sum(dim=(2, 3)) + target_one_hot.sum(dim=(2, 3))
    dice = (2 * inter + eps) / (sets_sum + eps)
    return 1 - dice.mean()
