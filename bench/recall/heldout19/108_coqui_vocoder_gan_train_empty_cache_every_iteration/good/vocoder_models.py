import torch
import torch.nn as nn
import torch.nn.functional as F


class Generator(nn.Module):
    def __init__(self, in_channels=80, hop_length=256):
        super().__init__()
        self.pre = nn.Conv1d(in_channels, 256, 7, padding=3)
        self.up = nn.ConvTranspose1d(256, 32, hop_length * 2, stride=hop_length, padding=hop_length // 2)
        self.post = nn.Conv1d(32, 1, 7, padding=3)

    def forward(self, c):
        return torch.tanh(self.post(F.leaky_relu(self.up(F.leaky_relu(self.pre(c))))))


class Discriminator(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.Sequential(
            nn.Conv1d(1, 16, 15, padding=7), nn.LeakyReLU(0.2),
            nn.Conv1d(16, 64, 41, stride=4, padding=20, groups=4), nn.LeakyReLU(0.2),
            nn.Conv1d(64, 1, 3, padding=1),
        )

    def forward(self, y):
        return self.layers(y)


def generator_loss(y_hat, y, scores_fake):
    loss = F.l1_loss(y_hat, y)
    if scores_fake is not None:
        loss = loss + torch.mean((1 - scores_fake) ** 2)
    return loss


def discriminator_loss(scores_fake, scores_real):
    return torch.mean(scores_fake ** 2) + torch.mean((1 - scores_real) ** 2)
