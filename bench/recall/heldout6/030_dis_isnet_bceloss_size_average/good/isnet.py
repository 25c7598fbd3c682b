import torch
from torch import nn
import torch.nn.functional as F

bce_loss = nn.BCELoss(reduction="mean")


def muti_loss_fusion(preds, target):
    loss0 = 0.0
    loss = 0.0
    for i in range(0, len(preds)):
        if preds[i].shape[2] != target.shape[2] or preds[i].shape[3] != target.shape[3]:
            tmp_target = F.interpolate(target, size=preds[i].size()[2:], mode="bilinear", align_corners=True)
            loss = loss + bce_loss(preds[i], tmp_target)
        else:
            loss = loss + bce_loss(preds[i], target)
        if i == 0:
            loss0 = loss
    return loss0, loss
