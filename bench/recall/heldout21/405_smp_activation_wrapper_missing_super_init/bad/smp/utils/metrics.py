from .. import common
from . import base
from .losses import f_score


class IoU(base.Metric):
    def __init__(self, eps=1e-7, threshold=0.5, activation=None, **kwargs):
        super().__init__(**kwargs)
        self.eps = eps
        self.threshold = threshold
        self.activation = common.Activation(activation)

    def forward(self, y_pr, y_gt):
        y_pr = self.activation(y_pr)
        return f_score(y_pr, y_gt, beta=1.0, eps=self.eps, threshold=self.threshold)
