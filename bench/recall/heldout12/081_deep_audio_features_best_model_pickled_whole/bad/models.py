import torch
import torch.nn as nn


class CNN1(nn.Module):
    def __init__(self, height, width, output_dim=7, zero_pad=False, spec_size=(51, 128)):
        super().__init__()
        self.height = height
        self.width = width
        self.output_dim = output_dim
        self.zero_pad = zero_pad
        self.spec_size = spec_size
        self.features = nn.Sequential(
            nn.Conv2d(1, 16, kernel_size=5, padding=2), nn.BatchNorm2d(16), nn.LeakyReLU(), nn.MaxPool2d(2),
            nn.Conv2d(16, 32, kernel_size=5, padding=2), nn.BatchNorm2d(32), nn.LeakyReLU(), nn.MaxPool2d(2),
            nn.Conv2d(32, 64, kernel_size=5, padding=2), nn.BatchNorm2d(64), nn.LeakyReLU(), nn.MaxPool2d(2),
        )
        flat = 64 * (height // 8) * (width // 8)
        self.classifier = nn.Sequential(nn.Linear(flat, 256), nn.LeakyReLU(), nn.Dropout(0.25), nn.Linear(256, output_dim))

    def forward(self, x):
        x = self.features(x.unsqueeze(1))
        return self.classifier(torch.flatten(x, 1))
