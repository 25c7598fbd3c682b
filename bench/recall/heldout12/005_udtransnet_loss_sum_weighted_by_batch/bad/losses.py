import torch
import torch.nn as nn


class WeightedDiceBCE(nn.Module):
    def __init__(self, dice_weight=0.5, bce_weight=0.5):
        super().__init__()
        self.bce = nn.BCEWithLogitsLoss()
        self.dice_weight = dice_weight
        self.bce_weight = bce_weight

    def _dice_loss(self, logits, target, eps=1e-5):
        prob = torch.sigmoid(logits)
        inter = (prob * target).sum(dim=(1, 2, 3))
        union = prob.sum(dim=(1, 2, 3)) + target.sum(dim=(1, 2, 3))
        return 1 - ((2 * inter + eps) / (union + eps)).mean()

    def _show_dice(self, logits, target):
        with torch.no_grad():
            return 1 - self._dice_loss(logits, target).item()

    def forward(self, logits, target):
        return self.dice_weight * self._dice_loss(logits, target) + self.bce_weight * self.bce(logits, target)
