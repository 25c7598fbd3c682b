import torch


def dice_coeff(pred, target, eps=1e-4):
    """Mean Dice coefficient over the batch."""
    total = torch.zeros(1, device=pred.device)
    for p, t in zip(pred, target):
        inter = torch.dot(p.reshape(-1), t.reshape(-1))
        union = p.sum() + t.sum() + eps
        total = total + (2 * inter + eps) / union
    return total / pred.size(0)
