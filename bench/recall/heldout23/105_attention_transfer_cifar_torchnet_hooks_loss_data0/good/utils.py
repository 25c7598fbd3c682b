import torch
import torch.nn.functional as F


def distillation(y, teacher_scores, labels, T, alpha):
    """Hinton distillation: softened KL to the teacher plus cross-entropy to the labels."""
    soft = F.kl_div(F.log_softmax(y / T, dim=1), F.softmax(teacher_scores / T, dim=1)) * (T * T * 2.0 * alpha)
    return soft + F.cross_entropy(y, labels) * (1.0 - alpha)


def at(x):
    """Spatial attention map: channel-mean of squared activations, L2-normalised per sample."""
    return F.normalize(x.pow(2).mean(1).view(x.size(0), -1))


def at_loss(x, y):
    return (at(x) - at(y)).pow(2).mean()


def cast(params, dtype="float"):
    if isinstance(params, dict):
        return {k: cast(v, dtype) for k, v in params.items()}
    return getattr(params.cuda(), dtype)()
