import torch
import torch.nn as nn
import torch.nn.functional as F


class Backbone(nn.Module):
    def __init__(self, dim=512):
        super().__init__()
        self.patch = nn.Conv2d(3, dim, 16, stride=16)
        self.block = nn.TransformerEncoderLayer(dim, 8, batch_first=True)
        self.norm = nn.LayerNorm(dim)

    def forward(self, x):
        tokens = self.patch(x).flatten(2).transpose(1, 2)
        return self.norm(self.block(tokens)).mean(dim=1)


class PartialFC(nn.Module):
    """Margin-softmax classification head over a (sampled) class-centre bank."""

    def __init__(self, dim=512, num_classes=10000, margin=0.3, scale=32.0):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(num_classes, dim) * 0.01)
        self.margin = margin
        self.scale = scale

    def forward(self, embedding, labels):
        logits = F.linear(F.normalize(embedding), F.normalize(self.weight))
        logits = logits - self.margin * F.one_hot(labels, logits.size(1))
        return F.cross_entropy(self.scale * logits, labels)


class PolynomialLRWarmup(torch.optim.lr_scheduler.LambdaLR):
    def __init__(self, optimizer, warmup_iters, total_iters, power=2):
        def fn(step):
            if step < warmup_iters:
                return (step + 1) / warmup_iters
            return max(0.0, 1 - (step - warmup_iters) / max(1, total_iters - warmup_iters)) ** power

        super().__init__(optimizer, fn)
