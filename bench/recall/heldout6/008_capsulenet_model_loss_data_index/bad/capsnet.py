import torch
from torch import nn


class CapsNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 256, kernel_size=9)
        self.digits = nn.Linear(256 * 20 * 20, 10 * 16)
        self.decoder = nn.Linear(16 * 10, 784)

    def forward(self, data):
        x = self.digits(torch.relu(self.conv(data)).flatten(1)).view(-1, 10, 16)
        reconstructions = torch.sigmoid(self.decoder(x.flatten(1)))
        return x, reconstructions

    def margin_loss(self, x, labels):
        v_c = x.norm(dim=-1)
        left = torch.relu(0.9 - v_c) ** 2
        right = torch.relu(v_c - 0.1) ** 2
        return (labels * left + 0.5 * (1.0 - labels) * right).sum(dim=1).mean()

    def reconstruction_loss(self, data, reconstructions):
        return ((reconstructions - data.flatten(1)) ** 2).sum(dim=1).mean()

    def loss(self, data, x, target, reconstructions):
        return self.margin_loss(x, target) + 0.0005 * self.reconstruction_loss(data, reconstructions)
