import torch
import torch.nn as nn


class YOLOLayer(nn.Module):
    """Detection head: decodes predictions and, given targets, returns the training loss."""

    def __init__(self, anchors, num_classes, img_dim=416):
        super().__init__()
        self.register_buffer("anchors", torch.tensor(anchors, dtype=torch.float32))
        self.num_anchors = len(anchors)
        self.num_classes = num_classes
        self.bbox_attrs = 5 + num_classes
        self.img_dim = img_dim

        self.mse_loss = nn.MSELoss(size_average=True)  # expect: TCK916
        self.bce_loss = nn.BCELoss(size_average=True)  # expect: TCK916
        self.ce_loss = nn.CrossEntropyLoss()

    def forward(self, x, targets=None):
        nB, nA, nG = x.size(0), self.num_anchors, x.size(2)
        pred = x.view(nB, nA, self.bbox_attrs, nG, nG).permute(0, 1, 3, 4, 2).contiguous()
        px, py = torch.sigmoid(pred[..., 0]), torch.sigmoid(pred[..., 1])
        pw, ph = pred[..., 2], pred[..., 3]
        pconf = torch.sigmoid(pred[..., 4])
        pcls = pred[..., 5:]
        if targets is None:
            return pred

        obj_mask = targets["obj_mask"]
        noobj_mask = targets["noobj_mask"]
        loss_x = self.mse_loss(px[obj_mask], targets["tx"][obj_mask])
        loss_y = self.mse_loss(py[obj_mask], targets["ty"][obj_mask])
        loss_w = self.mse_loss(pw[obj_mask], targets["tw"][obj_mask])
        loss_h = self.mse_loss(ph[obj_mask], targets["th"][obj_mask])
        loss_conf = self.bce_loss(pconf[obj_mask], targets["tconf"][obj_mask]) + self.bce_loss(
            pconf[noobj_mask], targets["tconf"][noobj_mask]
        )
        loss_cls = (1 / nB) * self.ce_loss(pcls[obj_mask], targets["tcls"][obj_mask])
        return loss_x + loss_y + loss_w + loss_h + loss_conf + loss_cls


class TinyDarknet(nn.Module):
    def __init__(self, anchors, num_classes):
        super().__init__()
        out_ch = len(anchors) * (5 + num_classes)
        self.backbone = nn.Sequential(
            nn.Conv2d(3, 16, 3, padding=1), nn.BatchNorm2d(16), nn.LeakyReLU(0.1), nn.MaxPool2d(2),
            nn.Conv2d(16, 32, 3, padding=1), nn.BatchNorm2d(32), nn.LeakyReLU(0.1), nn.MaxPool2d(2),
            nn.Conv2d(32, out_ch, 1),
        )
        self.yolo = YOLOLayer(anchors, num_classes)

    def forward(self, imgs, targets=None):
        return self.yolo(self.backbone(imgs), targets)
