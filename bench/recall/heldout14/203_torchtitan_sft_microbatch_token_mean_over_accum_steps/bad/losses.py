import torch
import torch.nn.functional as F

IGNORE_INDEX = -100


def cross_entropy_loss(pred: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
    """Mean over the tokens that carry a label (prompt tokens are IGNORE_INDEX)."""
    return F.cross_entropy(
        pred.flatten(0, 1).float(), labels.flatten(0, 1), ignore_index=IGNORE_INDEX
    )
