import torch
from torch import Tensor, nn

from dists import _dists_compute, _dists_update


class DeepImageStructureAndTextureSimilarity(nn.Module):
    """Accumulating metric over batches; the VGG network is built on every update."""

    def __init__(self, reduction: str = "mean") -> None:
        super().__init__()
        self.reduction = reduction
        self.register_buffer("score", torch.zeros(0))

    def update(self, preds: Tensor, target: Tensor) -> None:
        self.score = torch.cat([self.score.to(preds.device), _dists_update(preds, target).reshape(-1)])

    def compute(self) -> Tensor:
        return _dists_compute(self.score, self.reduction)
