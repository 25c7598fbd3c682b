import math

import torch


def GaussianNegLogLik(mean, target, var, mask=None):
    element_wise_nll = 0.5 * (torch.log(var) + (target - mean) ** 2 / var + math.log(2 * math.pi))
    if mask is not None:
        element_wise_nll = element_wise_nll * mask
        return element_wise_nll.sum() / mask.sum().clamp(min=1)
    return element_wise_nll.mean()


def rmse(target, prediction, mask=None):
    err = (target - prediction) ** 2
    if mask is not None:
        return torch.sqrt((err * mask).sum() / mask.sum().clamp(min=1))
    return torch.sqrt(err.mean())
