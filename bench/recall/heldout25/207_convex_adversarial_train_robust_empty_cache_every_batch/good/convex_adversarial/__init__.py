import torch
import torch.nn.functional as F
from torch import nn


def _interval_bounds(model, X, epsilon):
    """Propagate the l_inf ball [X - eps, X + eps] through the layers (a loose stand-in for the dual network bound)."""
    lower, upper = (X - epsilon).clamp(0, 1), (X + epsilon).clamp(0, 1)
    for layer in model:
        if isinstance(layer, (nn.Linear, nn.Conv2d)):
            mid, rad = (upper + lower) / 2, (upper - lower) / 2
            mid = layer(mid)
            w = layer.weight.abs()
            rad = F.linear(rad, w) if isinstance(layer, nn.Linear) else F.conv2d(rad, w, stride=layer.stride, padding=layer.padding)
            lower, upper = mid - rad, mid + rad
        else:
            lower, upper = layer(lower), layer(upper)
    return lower, upper


def robust_loss(model, epsilon, X, y, size_average=True, **kwargs):
    """Cross-entropy of the worst-case logits over the epsilon ball, and the robust error."""
    lower, upper = _interval_bounds(model, X, epsilon)
    onehot = F.one_hot(y, upper.shape[1]).bool()
    worst = torch.where(onehot, lower, upper)
    ce = F.cross_entropy(worst, y, reduction="mean" if size_average else "none")
    err = (worst.argmax(1) != y).float().mean()
    return ce, err
