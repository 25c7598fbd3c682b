import torch
from torch import nn


class YOLOLayer(nn.Module):
    """Detection head: decodes one scale of YOLOv3 predictions and computes its loss."""

    def __init__(self, anchors, num_classes, img_dim):
        super().__init__()
        self.anchors = anchors
        self.num_anchors = len(anchors)
        self.num_classes = num_classes
        self.bbox_attrs = 5 + num_classes
        self.img_dim = img_dim
        self.mse_loss = nn.MSELoss(size_average=True)  # expect: TCK916
        self.bce_loss = nn.BCELoss(size_average=True)  # expect: TCK916
        self.ce_loss = nn.CrossEntropyLoss()

    def forward(self, x, targets=None):
        nb, _, ng, _ = x.shape
        pred = x.view(nb, self.num_anchors, self.bbox_attrs, ng, ng).permute(0, 1, 3, 4, 2).contiguous()
        px, py = torch.sigmoid(pred[..., 0]), torch.sigmoid(pred[..., 1])
        conf = torch.sigmoid(pred[..., 4])
        cls_logits = pred[..., 5:]
        if targets is None:
            return pred
        mask, tx, ty, tconf, tcls = targets
        loss_x = self.mse_loss(px[mask], tx[mask])
        loss_y = self.mse_loss(py[mask], ty[mask])
        loss_conf = self.bce_loss(conf, tconf)
        loss_cls = self.ce_loss(cls_logits[mask], tcls[mask])
        return loss_x + loss_y + loss_conf + loss_cls
