import torch
import torch.nn as nn


class Generator(nn.Module):
    def __init__(self, z_dim=128, nlabels=1, size=32):
        super().__init__()
        self.embedding = nn.Embedding(nlabels, z_dim)
        self.fc = nn.Linear(2 * z_dim, 128 * 4 * 4)
        self.net = nn.Sequential(
            nn.Upsample(scale_factor=2), nn.Conv2d(128, 64, 3, padding=1), nn.LeakyReLU(0.2),
            nn.Upsample(scale_factor=2), nn.Conv2d(64, 32, 3, padding=1), nn.LeakyReLU(0.2),
            nn.Upsample(scale_factor=2), nn.Conv2d(32, 3, 3, padding=1), nn.Tanh(),
        )

    def forward(self, z, y):
        h = self.fc(torch.cat([z, self.embedding(y)], dim=1)).view(z.size(0), 128, 4, 4)
        return self.net(h)


class Discriminator(nn.Module):
    def __init__(self, nlabels=1):
        super().__init__()
        self.net = nn.Sequential(
            nn.Conv2d(3, 32, 3, stride=2, padding=1), nn.LeakyReLU(0.2),
            nn.Conv2d(32, 64, 3, stride=2, padding=1), nn.LeakyReLU(0.2),
            nn.Conv2d(64, 128, 3, stride=2, padding=1), nn.LeakyReLU(0.2),
        )
        self.fc = nn.Linear(128 * 4 * 4, nlabels)

    def forward(self, x, y):
        out = self.fc(self.net(x).flatten(1))
        return out.gather(1, y.view(-1, 1)).squeeze(1)
