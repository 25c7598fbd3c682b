import logging
import math

import torch.nn as nn


class Loss(object):
    """Base class: wraps a PyTorch criterion and accumulates it over the decoder steps of a batch."""

    def __init__(self, name, criterion):
        self.name = name
        self.criterion = criterion
        if not isinstance(self.criterion, nn.modules.loss._Loss):
            raise ValueError("Criterion has to be a subclass of torch.nn._Loss")
        self.acc_loss = 0
        self.norm_term = 0

    def reset(self):
        self.acc_loss = 0
        self.norm_term = 0

    def eval_batch(self, step_outputs, target_variable):
        batch_size = target_variable.size(0)
        for step, step_output in enumerate(step_outputs):
            self._eval_batch(step_output.contiguous().view(batch_size, -1), target_variable[:, step + 1])

    def backward(self):
        if isinstance(self.acc_loss, int):
            raise ValueError("No loss to back propagate.")
        self.acc_loss.backward()


class NLLLoss(Loss):
    _NAME = "Avg NLLLoss"

    def __init__(self, weight=None, mask=None, reduction="mean"):
        self.mask = mask
        self.reduction = reduction
        if mask is not None:
            if weight is None:
                raise ValueError("Must provide weight with a mask.")
            weight[mask] = 0
        super().__init__(self._NAME, nn.NLLLoss(weight=weight, reduction=reduction))

    def _eval_batch(self, outputs, target):
        self.acc_loss += self.criterion(outputs, target)
        self.norm_term += 1

    def get_loss(self):
        if isinstance(self.acc_loss, int):
            return 0
        loss = self.acc_loss.item()
        if self.reduction == "mean":
            loss /= self.norm_term
        return loss


class Perplexity(NLLLoss):
    _NAME = "Perplexity"
    _MAX_EXP = 100

    def __init__(self, weight=None, mask=None):
        super().__init__(weight=weight, mask=mask, reduction="sum")

    def _eval_batch(self, outputs, target):
        self.acc_loss += self.criterion(outputs, target)
        if self.mask is None:
            self.norm_term += target.numel()
        else:
            self.norm_term += target.ne(self.mask).sum().item()

    def get_loss(self):
        nll = super().get_loss() / self.norm_term
        if nll > Perplexity._MAX_EXP:
            logging.warning("Loss exceeded maximum value, capping to e^100")
            return math.exp(Perplexity._MAX_EXP)
        return math.exp(nll)
