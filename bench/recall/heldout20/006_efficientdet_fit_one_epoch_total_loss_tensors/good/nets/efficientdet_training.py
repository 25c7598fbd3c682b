import torch
import torch.nn as nn


def calc_iou(a, b):
    area = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
    iw = torch.clamp(torch.min(a[:, 3].unsqueeze(1), b[:, 2]) - torch.max(a[:, 1].unsqueeze(1), b[:, 0]), min=0)
    ih = torch.clamp(torch.min(a[:, 2].unsqueeze(1), b[:, 3]) - torch.max(a[:, 0].unsqueeze(1), b[:, 1]), min=0)
    ua = ((a[:, 2] - a[:, 0]) * (a[:, 3] - a[:, 1])).unsqueeze(1) + area - iw * ih
    return iw * ih / torch.clamp(ua, min=1e-8)


class FocalLoss(nn.Module):
    def __init__(self, alpha=0.25, gamma=2.0):
        super().__init__()
        self.alpha = alpha
        self.gamma = gamma

    def forward(self, classifications, regressions, anchors, annotations, cuda=True):
        anchor = anchors[0]
        cls_losses, reg_losses = [], []
        for j in range(classifications.shape[0]):
            classification = torch.clamp(classifications[j], 1e-4, 1.0 - 1e-4)
            regression = regressions[j]
            bbox = annotations[j]
            if bbox.shape[0] == 0:
                focal = (1.0 - self.alpha) * classification ** self.gamma
                cls_losses.append((focal * -torch.log(1.0 - classification)).sum())
                reg_losses.append(regression.sum() * 0)
                continue
            iou_max, iou_argmax = torch.max(calc_iou(anchor, bbox[:, :4]), dim=1)
            targets = torch.zeros_like(classification)
            positive = iou_max >= 0.5
            targets[positive, bbox[iou_argmax[positive], 4].long()] = 1
            alpha_factor = torch.where(targets == 1, self.alpha, 1.0 - self.alpha)
            focal_weight = torch.where(targets == 1, 1.0 - classification, classification)
            bce = -(targets * torch.log(classification) + (1.0 - targets) * torch.log(1.0 - classification))
            cls_losses.append((alpha_factor * focal_weight ** self.gamma * bce).sum() / torch.clamp(positive.sum(), min=1.0))
            if positive.sum() > 0:
                reg_losses.append(torch.abs(regression[positive]).mean())
            else:
                reg_losses.append(regression.sum() * 0)
        c_loss = torch.stack(cls_losses).mean()
        r_loss = torch.stack(reg_losses).mean()
        loss = c_loss + r_loss
        return loss, c_loss, r_loss
