import torch
import torch.nn.functional as F
from torch import nn


class DiffusionPrior(nn.Module):
    def __init__(self, dim=512):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(dim, dim * 2), nn.GELU(), nn.Linear(dim * 2, dim))

    def forward(self, text_embed, image_embed):
        noise = torch.randn_like(image_embed)
        pred = self.net(text_embed + noise)
        return F.mse_loss(pred, image_embed)


class Unet(nn.Module):
    def __init__(self, channels=3, dim=64):
        super().__init__()
        self.net = nn.Sequential(
            nn.Conv2d(channels, dim, 3, padding=1), nn.SiLU(), nn.Conv2d(dim, channels, 3, padding=1)
        )

    def forward(self, x):
        return self.net(x)


class Decoder(nn.Module):
    def __init__(self, num_unets=2):
        super().__init__()
        self.unets = nn.ModuleList([Unet() for _ in range(num_unets)])

    def forward(self, images, unet_number=1):
        unet = self.unets[unet_number - 1]
        noise = torch.randn_like(images)
        return F.mse_loss(unet(images + noise), noise)
