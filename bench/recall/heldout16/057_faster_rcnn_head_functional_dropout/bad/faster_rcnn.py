import torch
import torch.nn.functional as F
from torch import nn
from torchvision.ops import roi_pool


class FasterRCNNBase(nn.Module):
    def __init__(self, classes, pooling_size=7):
        super().__init__()
        self.classes = classes
        self.n_classes = len(classes)
        self.pooling_size = pooling_size

    def _init_modules(self):
        raise NotImplementedError

    def create_architecture(self):
        self._init_modules()
        for layer in (self.RCNN_cls_score, self.RCNN_bbox_pred):
            nn.init.normal_(layer.weight, std=0.01)
            nn.init.zeros_(layer.bias)

    def forward(self, im_data, rois, gt_labels=None, gt_targets=None):
        base_feat = self.RCNN_base(im_data)
        pooled = roi_pool(base_feat, rois, (self.pooling_size, self.pooling_size), spatial_scale=1.0 / 16)
        x = pooled.flatten(1)

        x = self.RCNN_fc6(x)
        x = F.relu(x, inplace=True)
        x = F.dropout(x, 0.5)  # expect: TCK604

        x = self.RCNN_fc7(x)
        x = F.relu(x, inplace=True)
        x = F.dropout(x, 0.5)  # expect: TCK604

        cls_score = self.RCNN_cls_score(x)
        cls_prob = F.softmax(cls_score, dim=1)
        bbox_pred = self.RCNN_bbox_pred(x)

        if self.training:
            loss_cls = F.cross_entropy(cls_score, gt_labels)
            loss_bbox = F.smooth_l1_loss(bbox_pred, gt_targets)
            return cls_prob, bbox_pred, loss_cls + loss_bbox
        return cls_prob, bbox_pred, None
