import torch
import torch.nn.functional as F


def softplus(x):
    return F.softplus(x)


def inv_softplus(x):
    """Inverse of softplus: the raw value whose softplus is ``x``."""
    return x + torch.log(-torch.expm1(-x))


TRANSFORM_PAIRS = {"softplus": (softplus, inv_softplus)}
