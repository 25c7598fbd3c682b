import torch
from torch import nn

__all__ = ["CrossEntropyLabelSmooth", "CenterLoss"]


class CrossEntropyLabelSmooth(nn.Module):
    """Cross entropy with label smoothing: y = (1 - eps) * y + eps / K."""

    def __init__(self, num_classes, epsilon=0.1, use_gpu=True):
        super().__init__()
        self.num_classes = num_classes
        self.epsilon = epsilon
        self.use_gpu = use_gpu
        self.logsoftmax = nn.LogSoftmax(dim=1)

    def forward(self, inputs, targets):
        log_probs = self.logsoftmax(inputs)
        smooth = torch.zeros_like(log_probs).scatter_(1, targets.unsqueeze(1), 1)
        smooth = (1 - self.epsilon) * smooth + self.epsilon / self.num_classes
        return (-smooth * log_probs).mean(0).sum()


class CenterLoss(nn.Module):
    """Pulls every feature towards a learned centre of its class."""

    def __init__(self, num_classes=751, feat_dim=2048, use_gpu=True):
        super().__init__()
        self.num_classes = num_classes
        self.feat_dim = feat_dim
        self.centers = nn.Parameter(torch.randn(num_classes, feat_dim))

    def forward(self, x, labels):
        batch_size = x.size(0)
        distmat = (x.pow(2).sum(dim=1, keepdim=True).expand(batch_size, self.num_classes)
                   + self.centers.pow(2).sum(dim=1, keepdim=True).expand(self.num_classes, batch_size).t())
        distmat = distmat - 2 * x @ self.centers.t()
        classes = torch.arange(self.num_classes, device=x.device)
        mask = labels.unsqueeze(1).expand(batch_size, self.num_classes).eq(classes.expand(batch_size, self.num_classes))
        dist = distmat[mask].clamp(min=1e-12, max=1e12)
        return dist.mean()
