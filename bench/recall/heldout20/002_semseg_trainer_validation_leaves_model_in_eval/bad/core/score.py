import numpy as np


class SegmentationMetric(object):
    def __init__(self, nclass):
        self.nclass = nclass
        self.reset()

    def update(self, pred, label):
        valid = label >= 0
        self.total_correct += np.sum((pred == label) * valid)
        self.total_label += np.sum(valid)
        for c in range(self.nclass):
            p, t = (pred == c) & valid, (label == c) & valid
            self.total_inter[c] += np.sum(p & t)
            self.total_union[c] += np.sum(p | t)

    def get(self):
        pix_acc = self.total_correct / (np.spacing(1) + self.total_label)
        iou = self.total_inter / (np.spacing(1) + self.total_union)
        return pix_acc, iou.mean()

    def reset(self):
        self.total_inter = np.zeros(self.nclass)
        self.total_union = np.zeros(self.nclass)
        self.total_correct = 0
        self.total_label = 0
