from abc import abstractmethod

import torch
from torch import Tensor, nn
from torch.nn import functional as F


class LossFunction(nn.Module):
    def __init__(self, w_t: Tensor | None = None):
        """
        w_t: a tensor of shape ``t`` (or ``1 x t``) with one weight per task; ``None`` when the
        function is only used as a metric.
        """
        super().__init__()
        if w_t is not None:
            self.register_buffer("w_t", torch.as_tensor(w_t, dtype=torch.float))
        else:
            self.w_t = None

    def forward(self, preds: Tensor, targets: Tensor, mask: Tensor, w_s: Tensor,
                lt_mask: Tensor, gt_mask: Tensor):
        L = self._calc_unreduced_loss(preds, targets, mask, w_s, lt_mask, gt_mask)
        L = L * w_s.view(-1, 1) * self.w_t.view(1, -1) * mask
        return L.sum() / mask.sum()

    @abstractmethod
    def _calc_unreduced_loss(self, preds, targets, mask, w_s, lt_mask, gt_mask) -> Tensor:
        """A ``b x t`` tensor of unreduced loss values."""


class MSELoss(LossFunction):
    def _calc_unreduced_loss(self, preds: Tensor, targets: Tensor, *args) -> Tensor:
        return F.mse_loss(preds, targets, reduction="none")


class BCELoss(LossFunction):
    def _calc_unreduced_loss(self, preds: Tensor, targets: Tensor, *args) -> Tensor:
        return F.binary_cross_entropy_with_logits(preds, targets, reduction="none")
