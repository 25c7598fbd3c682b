import torch.nn as nn
import torch.nn.functional as F


class FasterRCNNTrainer(nn.Module):
    def __init__(self, faster_rcnn, optimizer):
        super(FasterRCNNTrainer, self).__init__()
        self.faster_rcnn = faster_rcnn
        self.optimizer = optimizer

    def forward(self, imgs, bboxes, labels, scale):
        rpn_locs, rpn_scores, roi_locs, roi_scores, gt = self.faster_rcnn(imgs, bboxes, labels, scale)
        rpn_loc_loss = F.smooth_l1_loss(rpn_locs, gt["rpn_loc"])
        rpn_cls_loss = F.cross_entropy(rpn_scores, gt["rpn_label"], ignore_index=-1)
        roi_loc_loss = F.smooth_l1_loss(roi_locs, gt["roi_loc"])
        roi_cls_loss = F.cross_entropy(roi_scores, gt["roi_label"])
        losses = [rpn_loc_loss, rpn_cls_loss, roi_loc_loss, roi_cls_loss]
        losses = losses + [sum(losses)]
        return losses

    def train_step(self, imgs, bboxes, labels, scale):
        self.optimizer.zero_grad()
        losses = self.forward(imgs, bboxes, labels, scale)
        losses[-1].backward()
        self.optimizer.step()
        return losses
