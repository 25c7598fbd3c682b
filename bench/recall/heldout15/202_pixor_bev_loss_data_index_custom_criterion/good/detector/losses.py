import torch
import torch.nn as nn
import torch.nn.functional as F


class BEVDetectionLoss(nn.Module):
    """Focal classification loss plus smooth-L1 box regression on positive cells."""

    def __init__(self, alpha=0.25, gamma=2.0, reg_weight=1.0):
        super().__init__()
        self.alpha = alpha
        self.gamma = gamma
        self.reg_weight = reg_weight

    def focal(self, logits, target):
        p = torch.sigmoid(logits)
        ce = F.binary_cross_entropy_with_logits(logits, target, reduction="none")
        p_t = p * target + (1 - p) * (1 - target)
        a_t = self.alpha * target + (1 - self.alpha) * (1 - target)
        return (a_t * (1 - p_t) ** self.gamma * ce).sum()

    def forward(self, preds, label_map):
        cls_logits, box_preds = preds[:, :1], preds[:, 1:]
        cls_target, box_target = label_map[:, :1], label_map[:, 1:]
        cls_loss = self.focal(cls_logits, cls_target)
        pos = cls_target.expand_as(box_preds) > 0
        if pos.any():
            reg_loss = F.smooth_l1_loss(box_preds[pos], box_target[pos], reduction="sum")
        else:
            reg_loss = box_preds.sum() * 0.0
        return cls_loss + self.reg_weight * reg_loss
