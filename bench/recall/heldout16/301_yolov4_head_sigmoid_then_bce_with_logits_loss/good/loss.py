import torch
import torch.nn as nn


class YoloLoss(nn.Module):
    def __init__(self, box_weight=5.0):
        super().__init__()
        self.box_weight = box_weight
        self.bce = nn.BCEWithLogitsLoss(reduction="none")

    def forward(self, box, conf, cls, target):
        obj_mask = target[..., 4:5]
        box_loss = (obj_mask * (box - target[..., :4]) ** 2).sum()
        conf_loss = self.bce(conf, obj_mask).sum()
        cls_loss = (obj_mask * self.bce(cls, target[..., 5:])).sum()
        batch_size = box.shape[0]
        return (self.box_weight * box_loss + conf_loss + cls_loss) / batch_size
