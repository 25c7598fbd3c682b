import torch.nn as nn
import torch.nn.functional as F

from src.models import CMTL


class CrowdCounter(nn.Module):
    def __init__(self, ce_weights=None):
        super(CrowdCounter, self).__init__()
        self.CCN = CMTL()
        self.loss_mse_fn = nn.MSELoss()
        self.loss_bce_fn = nn.BCELoss(weight=ce_weights)

    def forward(self, im_data, gt_data=None, gt_cls_label=None):
        density_map, density_cls_score = self.CCN(im_data)
        density_cls_prob = F.softmax(density_cls_score, dim=1)
        if self.training:
            self.loss_mse = self.loss_mse_fn(density_map, gt_data)
            self.cross_entropy = self.loss_bce_fn(density_cls_prob, gt_cls_label)
        return density_map
