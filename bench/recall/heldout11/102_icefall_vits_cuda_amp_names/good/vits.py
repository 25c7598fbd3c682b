import torch
import torch.nn as nn
import torch.nn.functional as F


class VITS(nn.Module):
    """Tiny stand-in for the VITS generator + discriminator pair."""

    def __init__(self, vocab_size=64, hidden=192, frames=80):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, hidden)
        self.generator = nn.Sequential(nn.Linear(hidden, hidden), nn.ReLU(), nn.Linear(hidden, frames))
        self.discriminator = nn.Sequential(nn.Linear(frames, hidden), nn.LeakyReLU(0.1), nn.Linear(hidden, 1))

    def forward(self, tokens, feats, return_generator=True):
        fake = self.generator(self.embed(tokens).mean(1))
        if return_generator:
            adv = -self.discriminator(fake).mean()
            return adv + F.l1_loss(fake, feats)
        real_score = self.discriminator(feats)
        fake_score = self.discriminator(fake.detach())
        return F.relu(1 - real_score).mean() + F.relu(1 + fake_score).mean()
