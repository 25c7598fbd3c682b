import torch
import torch.nn as nn
import torch.nn.functional as F


class SmoothCrossEntropy(nn.Module):
    def __init__(self, label_smoothing=0.2, ignore_index=None, num_classes=None, weight=None):
        super().__init__()
        self.label_smoothing = label_smoothing
        self.ignore_index = ignore_index
        self.weight = weight
        if ignore_index is not None:
            reducing_list = torch.arange(num_classes + 1).long().cuda(non_blocking=True)
            inserted = torch.tensor([ignore_index] * (num_classes - ignore_index)).long().cuda(non_blocking=True)
            self.reducing_list = torch.cat([reducing_list[:ignore_index], inserted], 0)

    def forward(self, pred, gt):
        if self.ignore_index is not None:
            valid = gt != self.ignore_index
            pred = pred[valid]
            gt = gt[valid]
            gt = torch.gather(self.reducing_list, 0, gt)
        n_class = pred.size(1)
        one_hot = torch.zeros_like(pred).scatter(1, gt.view(-1, 1), 1)
        one_hot = one_hot * (1 - self.label_smoothing) + (1 - one_hot) * self.label_smoothing / (n_class - 1)
        log_prb = F.log_softmax(pred, dim=1)
        return -(one_hot * log_prb).sum(dim=1).mean()
