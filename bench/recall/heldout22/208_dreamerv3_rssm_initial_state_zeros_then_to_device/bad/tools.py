import torch
from torch import nn


def symlog(x):
    return torch.sign(x) * torch.log(torch.abs(x) + 1.0)


def symexp(x):
    return torch.sign(x) * (torch.exp(torch.abs(x)) - 1.0)


def weight_init(m):
    if isinstance(m, nn.Linear):
        nn.init.trunc_normal_(m.weight, std=0.02)
        if m.bias is not None:
            nn.init.zeros_(m.bias)


class DiscDist:
    """Two-hot categorical over symlog-spaced buckets (reward and value heads)."""

    def __init__(self, logits, low=-20.0, high=20.0, transfwd=symlog, transbwd=symexp, device="cuda"):
        self.logits = logits
        self.probs = torch.softmax(logits, -1)
        self.buckets = torch.linspace(low, high, steps=255).to(device)  # expect: TCK201
        self.width = (self.buckets[-1] - self.buckets[0]) / 255
        self.transfwd = transfwd
        self.transbwd = transbwd

    def mean(self):
        return self.transbwd(torch.sum(self.probs * self.buckets, dim=-1, keepdim=True))

    def log_prob(self, x):
        x = self.transfwd(x)
        below = torch.sum((self.buckets <= x[..., None]).to(torch.int32), dim=-1) - 1
        above = len(self.buckets) - torch.sum((self.buckets > x[..., None]).to(torch.int32), dim=-1)
        below = torch.clip(below, 0, len(self.buckets) - 1)
        above = torch.clip(above, 0, len(self.buckets) - 1)
        equal = below == above
        dist_to_below = torch.where(equal, 1, torch.abs(self.buckets[below] - x))
        dist_to_above = torch.where(equal, 1, torch.abs(self.buckets[above] - x))
        total = dist_to_below + dist_to_above
        target = (
            nn.functional.one_hot(below, len(self.buckets)) * (dist_to_above / total)[..., None]
            + nn.functional.one_hot(above, len(self.buckets)) * (dist_to_below / total)[..., None]
        )
        log_pred = self.logits - torch.logsumexp(self.logits, -1, keepdim=True)
        return (target * log_pred).sum(-1)
