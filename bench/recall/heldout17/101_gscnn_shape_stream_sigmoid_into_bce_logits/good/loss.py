import torch
import torch.nn as nn
import torch.nn.functional as F


class JointEdgeSegLoss(nn.Module):
    def __init__(self, ignore_index=255, edge_weight=1.0, seg_weight=1.0):
        super().__init__()
        self.seg_loss = nn.CrossEntropyLoss(ignore_index=ignore_index)
        self.edge_weight = edge_weight
        self.seg_weight = seg_weight

    def bce2d(self, input, target):
        log_p = input.transpose(1, 2).transpose(2, 3).contiguous().view(1, -1)
        target_t = target.transpose(1, 2).transpose(2, 3).contiguous().view(1, -1)

        pos = target_t == 1
        neg = target_t == 0
        n_pos = pos.sum().float()
        n_neg = neg.sum().float()
        total = n_pos + n_neg

        weight = torch.zeros_like(log_p)
        weight[pos] = n_neg / total
        weight[neg] = n_pos / total
        return F.binary_cross_entropy_with_logits(log_p, target_t, weight, reduction="mean")

    def forward(self, inputs, targets):
        segin, edgein = inputs
        segmask, edgemask = targets
        losses = {}
        losses["seg_loss"] = self.seg_weight * self.seg_loss(segin, segmask)
        losses["edge_loss"] = self.edge_weight * 20 * self.bce2d(edgein, edgemask)
        return losses
