import torch
from torch import nn
import torch.nn.functional as F


class WeightedFocalLoss(nn.Module):
    """Binary focal loss with class weights alpha / 1 - alpha."""

    def __init__(self, alpha=0.25, gamma=2):
        super().__init__()
        self.register_buffer("alpha", torch.tensor([alpha, 1 - alpha]))
        self.gamma = gamma

    def forward(self, inputs, targets):
        bce_loss = F.binary_cross_entropy_with_logits(inputs, targets, reduction="none")
        at = self.alpha.gather(0, targets.long().view(-1))
        pt = torch.exp(-bce_loss)
        return (at * (1 - pt) ** self.gamma * bce_loss).mean()
