import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


def bboxes_iou(boxes_a, boxes_b):
    """IoU between (N, 4) and (M, 4) boxes given as (cx, cy, w, h)."""
    tl = torch.max(boxes_a[:, None, :2] - boxes_a[:, None, 2:] / 2, boxes_b[:, :2] - boxes_b[:, 2:] / 2)
    br = torch.min(boxes_a[:, None, :2] + boxes_a[:, None, 2:] / 2, boxes_b[:, :2] + boxes_b[:, 2:] / 2)
    area_i = (br - tl).clamp(min=0).prod(2)
    area_a = boxes_a[:, 2:].prod(1)
    area_b = boxes_b[:, 2:].prod(1)
    return area_i / (area_a[:, None] + area_b - area_i)


class YoloLoss(nn.Module):
    def __init__(self, n_classes=80, n_anchors=3, ignore_thre=0.5):
        super().__init__()
        self.n_classes = n_classes
        self.n_anchors = n_anchors
        self.ignore_thre = ignore_thre

    def build_target(self, pred, labels, batchsize, fsize):
        obj_mask = torch.ones(batchsize, self.n_anchors, fsize, fsize, dtype=torch.bool, device=pred.device)
        for b in range(batchsize):
            truth = labels[b]
            truth = truth[truth.sum(dim=1) > 0]
            if truth.numel() == 0:
                continue
            truth_box = truth[:, 1:5] * fsize
            pred_ious = bboxes_iou(pred[b].reshape(-1, 4), truth_box)
            pred_best_iou, _ = pred_ious.max(dim=1)
            pred_best_iou = pred_best_iou > self.ignore_thre
            obj_mask[b] = ~pred_best_iou.view(pred[b].shape[:3])
        return obj_mask

    def forward(self, outputs, labels):
        loss = 0.0
        for output in outputs:
            batchsize, fsize = output.shape[0], output.shape[2]
            n_ch = 5 + self.n_classes
            output = output.view(batchsize, self.n_anchors, n_ch, fsize, fsize)
            output = output.permute(0, 1, 3, 4, 2)
            output[..., np.r_[:2, 4:n_ch]] = torch.sigmoid(output[..., np.r_[:2, 4:n_ch]])

            pred = output[..., :4].clone()
            grid = torch.arange(fsize, dtype=torch.float, device=output.device)
            pred[..., 0] += grid.view(1, 1, 1, fsize)
            pred[..., 1] += grid.view(1, 1, fsize, 1)
            pred[..., 2:4] = torch.exp(pred[..., 2:4])

            obj_mask = self.build_target(pred, labels, batchsize, fsize)
            loss = loss + F.binary_cross_entropy(output[..., 4], obj_mask.float(), reduction="sum")
        return loss
