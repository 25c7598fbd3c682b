import torch
import torch.nn as nn
import torch.nn.functional as F


class PatchDiscriminator(nn.Module):
    def __init__(self, in_channels=1, width=32):
        super().__init__()
        self.net = nn.Sequential(
            nn.Conv2d(in_channels, width, 4, stride=2, padding=1), nn.LeakyReLU(0.2),
            nn.Conv2d(width, width * 2, 4, stride=2, padding=1), nn.LeakyReLU(0.2),
            nn.Conv2d(width * 2, 1, 3, padding=1),
        )

    def forward(self, x):
        return self.net(x)


class RecKLWithDiscriminator(nn.Module):
    """Reconstruction + KL + adversarial loss; optimizer_idx selects the generator or discriminator term."""

    def __init__(self, in_channels=1, kl_weight=1e-6, disc_weight=0.5, disc_start=1000):
        super().__init__()
        self.discriminator = PatchDiscriminator(in_channels)
        self.kl_weight = kl_weight
        self.disc_weight = disc_weight
        self.disc_start = disc_start

    def forward(self, target, pred, posterior, optimizer_idx, global_step, split="train"):
        factor = 1.0 if global_step >= self.disc_start else 0.0
        if optimizer_idx == 0:
            rec = F.l1_loss(pred, target)
            kl = posterior.kl().mean()
            g_loss = -self.discriminator(pred).mean()
            loss = rec + self.kl_weight * kl + factor * self.disc_weight * g_loss
            return loss, {f"{split}/rec": rec.detach(), f"{split}/kl": kl.detach()}
        real = self.discriminator(target.detach())
        fake = self.discriminator(pred.detach())
        d_loss = factor * 0.5 * (F.relu(1.0 - real).mean() + F.relu(1.0 + fake).mean())
        return d_loss, {f"{split}/d_loss": d_loss.detach()}
