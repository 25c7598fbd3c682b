import torch
import torch.nn as nn
from torchvision.models.resnet import BasicBlock, ResNet


class MnistResNet(ResNet):
    """ResNet-18 with a one-channel stem, for grayscale tasks."""

    def __init__(self):
        super(MnistResNet, self).__init__(BasicBlock, [2, 2, 2, 2], num_classes=10)
        self.conv1 = nn.Conv2d(1, 64, kernel_size=(7, 7), stride=(2, 2), padding=(3, 3), bias=False)

    def forward(self, x):
        """Returns class probabilities."""
        return torch.softmax(super(MnistResNet, self).forward(x), dim=-1)


class ConvEncoder(nn.Module):
    """Four conv blocks producing an embedding, for the prototype taglet."""

    def __init__(self, x_dim=1, hid_dim=64, z_dim=64):
        super().__init__()
        self.encoder = nn.Sequential(
            self.conv_block(x_dim, hid_dim),
            self.conv_block(hid_dim, hid_dim),
            self.conv_block(hid_dim, hid_dim),
            self.conv_block(hid_dim, z_dim),
        )

    @staticmethod
    def conv_block(in_channels, out_channels):
        return nn.Sequential(
            nn.Conv2d(in_channels, out_channels, 3, padding=1),
            nn.BatchNorm2d(out_channels),
            nn.ReLU(),
            nn.MaxPool2d(2),
        )

    def forward(self, x):
        return self.encoder(x).view(x.size(0), -1)
