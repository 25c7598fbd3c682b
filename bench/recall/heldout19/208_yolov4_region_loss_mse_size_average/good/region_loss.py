import torch
import torch.nn as nn


class RegionLoss(nn.Module):
    def __init__(self, num_classes=20, anchors=(1.08, 1.19, 3.42, 4.41, 6.63, 11.38), num_anchors=3,
                 coord_scale=1.0, class_scale=1.0):
        super().__init__()
        self.num_classes = num_classes
        self.num_anchors = num_anchors
        self.register_buffer("anchors", torch.tensor(anchors).view(num_anchors, 2))
        self.coord_scale = coord_scale
        self.class_scale = class_scale

    def build_targets(self, target, nB, nH, nW):
        coord_mask = torch.zeros(nB, self.num_anchors, nH, nW, device=target.device)
        conf_mask = torch.ones(nB, self.num_anchors, nH, nW, device=target.device)
        tx, ty, tw, th, tconf = (torch.zeros(nB, self.num_anchors, nH, nW, device=target.device) for _ in range(5))
        tcls = torch.zeros(nB, self.num_anchors, nH, nW, dtype=torch.long, device=target.device)
        for b in range(nB):
            for t in range(target.shape[1]):
                cls, gx, gy, gw, gh = target[b, t]
                if gw == 0:
                    break
                gi, gj = int(gx * nW), int(gy * nH)
                ratios = torch.minimum(self.anchors[:, 0], gw * nW) * torch.minimum(self.anchors[:, 1], gh * nH)
                best_n = int(torch.argmax(ratios))
                coord_mask[b, best_n, gj, gi] = 1
                tx[b, best_n, gj, gi] = gx * nW - gi
                ty[b, best_n, gj, gi] = gy * nH - gj
                tw[b, best_n, gj, gi] = torch.log(gw * nW / self.anchors[best_n, 0])
                th[b, best_n, gj, gi] = torch.log(gh * nH / self.anchors[best_n, 1])
                tconf[b, best_n, gj, gi] = 1
                tcls[b, best_n, gj, gi] = int(cls)
        return coord_mask, conf_mask, tx, ty, tw, th, tconf, tcls

    def forward(self, output, target):
        nB, _, nH, nW = output.shape
        output = output.view(nB, self.num_anchors, 5 + self.num_classes, nH, nW)
        x = torch.sigmoid(output[:, :, 0])
        y = torch.sigmoid(output[:, :, 1])
        w = output[:, :, 2]
        h = output[:, :, 3]
        conf = torch.sigmoid(output[:, :, 4])
        cls = output[:, :, 5:].permute(0, 1, 3, 4, 2).reshape(-1, self.num_classes)
        coord_mask, conf_mask, tx, ty, tw, th, tconf, tcls = self.build_targets(target, nB, nH, nW)
        cls_mask = coord_mask.view(-1) == 1
        cls, tcls = cls[cls_mask], tcls.view(-1)[cls_mask]

        loss_x = self.coord_scale * nn.MSELoss(reduction="sum")(x * coord_mask, tx * coord_mask) / 2.0
        loss_y = self.coord_scale * nn.MSELoss(reduction="sum")(y * coord_mask, ty * coord_mask) / 2.0
        loss_w = self.coord_scale * nn.MSELoss(reduction="sum")(w * coord_mask, tw * coord_mask) / 2.0
        loss_h = self.coord_scale * nn.MSELoss(reduction="sum")(h * coord_mask, th * coord_mask) / 2.0
        loss_conf = nn.MSELoss(reduction="sum")(conf * conf_mask, tconf * conf_mask) / 2.0
        loss_cls = self.class_scale * nn.CrossEntropyLoss(reduction="sum")(cls, tcls)
        return loss_x + loss_y + loss_w + loss_h + loss_conf + loss_cls
