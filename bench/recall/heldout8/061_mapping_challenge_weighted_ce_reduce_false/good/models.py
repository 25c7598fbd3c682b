import torch


def multiclass_weighted_cross_entropy(output, target, weights_function=None):
    """Cross entropy where every pixel's loss is multiplied by a weight map stored in the target."""
    if weights_function is None:
        weights = target[:, 1, :, :]
    else:
        weights = weights_function(target[:, 1:, :, :])
    target = target[:, 0, :, :].long()
    loss_per_pixel = torch.nn.CrossEntropyLoss(reduction="none")(output, target)
    return torch.mean(loss_per_pixel * weights)


def mixed_dice_cross_entropy_loss(output, target, dice_weight=0.5, ce_weight=0.5):
    probs = torch.softmax(output, dim=1)[:, 1]
    mask = target[:, 0].float()
    dice = 1 - (2 * (probs * mask).sum() + 1) / (probs.sum() + mask.sum() + 1)
    return dice_weight * dice + ce_weight * multiclass_weighted_cross_entropy(output, target)
