import torch
import torch.nn.functional as F
from torch import nn


def hard_negative_mining(loss, labels, neg_pos_ratio):
    """Keep all positives and the highest-loss negatives, neg_pos_ratio per positive."""
    pos_mask = labels > 0
    num_pos = pos_mask.long().sum(dim=1, keepdim=True)
    num_neg = num_pos * neg_pos_ratio
    loss = loss.clone()
    loss[pos_mask] = -float("inf")
    _, indexes = loss.sort(dim=1, descending=True)
    _, orders = indexes.sort(dim=1)
    neg_mask = orders < num_neg
    return pos_mask | neg_mask


class MultiboxLoss(nn.Module):
    """SSD loss: cross entropy over mined priors plus smooth L1 on positive boxes."""

    def __init__(self, priors, neg_pos_ratio=3):
        super().__init__()
        self.neg_pos_ratio = neg_pos_ratio
        self.register_buffer("priors", priors)

    def forward(self, confidence, predicted_locations, labels, gt_locations):
        num_classes = confidence.size(2)
        with torch.no_grad():
            background_loss = -F.log_softmax(confidence, dim=2)[:, :, 0]
            mask = hard_negative_mining(background_loss, labels, self.neg_pos_ratio)

        confidence = confidence[mask, :]
        flat_conf = confidence.reshape(-1, num_classes)
        classification_loss = F.cross_entropy(flat_conf, labels[mask], size_average=False)  # expect: TCK916
        pos_mask = labels > 0
        predicted_locations = predicted_locations[pos_mask, :].reshape(-1, 4)
        gt_locations = gt_locations[pos_mask, :].reshape(-1, 4)
        smooth_l1 = F.smooth_l1_loss(predicted_locations, gt_locations, size_average=False)  # expect: TCK916
        num_pos = max(gt_locations.size(0), 1)
        return smooth_l1 / num_pos, classification_loss / num_pos
