import torch

from .. import common
from . import base


def f_score(pr, gt, beta=1.0, eps=1e-7, threshold=None):
    if threshold is not None:
        pr = (pr > threshold).type(pr.dtype)
    tp = torch.sum(gt * pr)
    fp = torch.sum(pr) - tp
    fn = torch.sum(gt) - tp
    return ((1 + beta ** 2) * tp + eps) / ((1 + beta ** 2) * tp + beta ** 2 * fn + fp + eps)


class DiceLoss(base.Loss):
    def __init__(self, eps=1.0, beta=1.0, activation=None, **kwargs):
        super().__init__(**kwargs)
        self.eps = eps
        self.beta = beta
        self.activation = common.Activation(activation)

    def forward(self, y_pr, y_gt):
        y_pr = self.activation(y_pr)
        return 1 - f_score(y_pr, y_gt, beta=self.beta, eps=self.eps)
