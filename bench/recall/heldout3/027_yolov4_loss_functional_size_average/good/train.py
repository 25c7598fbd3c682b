import torch.nn as nn
import torch.nn.functional as F


class Yolo_loss(nn.Module):
    def __init__(self, n_classes=80, n_anchors=3):
        super(Yolo_loss, self).__init__()
        self.n_classes = n_classes
        self.n_anchors = n_anchors

    def forward(self, output, target, tgt_scale):
        loss_xy = F.binary_cross_entropy(input=output[..., :2], target=target[..., :2], weight=tgt_scale * tgt_scale, reduction='sum')
        loss_wh = F.mse_loss(input=output[..., 2:4], target=target[..., 2:4], reduction='sum') / 2
        loss_obj = F.binary_cross_entropy(input=output[..., 4], target=target[..., 4], reduction='sum')
        loss_cls = F.binary_cross_entropy(input=output[..., 5:], target=target[..., 5:], reduction='sum')
        loss_l2 = F.mse_loss(input=output, target=target, reduction='sum')
        loss = loss_xy + loss_wh + loss_obj + loss_cls
        return loss, loss_xy, loss_wh, loss_obj, loss_cls, loss_l2
