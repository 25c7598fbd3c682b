import math

import numpy as np
import torch.nn as nn


class Loss(object):
    """Accumulates a PyTorch criterion over the decoding steps of a batch."""

    def __init__(self, name, criterion):
        self.name = name
        self.criterion = criterion
        self.acc_loss = 0
        self.norm_term = 0

    def reset(self):
        self.acc_loss = 0
        self.norm_term = 0

    def eval_batch(self, step_outputs, targets):
        for step, step_output in enumerate(step_outputs):
            self.eval_step(step_output, targets[:, step + 1])

    def eval_step(self, outputs, target):
        raise NotImplementedError

    def to(self, device):
        self.criterion.to(device)

    def backward(self):
        if isinstance(self.acc_loss, int):
            raise ValueError("No loss to back propagate.")
        self.acc_loss.backward()


class NLLLoss(Loss):
    """Batch-averaged negative log-likelihood."""

    def __init__(self, ignore_index=-1, size_average=True):
        self.ignore_index = ignore_index
        self.size_average = size_average
        super().__init__(
            "Avg NLLLoss",
            nn.NLLLoss(ignore_index=ignore_index, reduction="mean" if size_average else "sum"),
        )

    def get_loss(self):
        if isinstance(self.acc_loss, int):
            return 0
        loss = self.acc_loss.item()
        if self.size_average:
            loss /= self.norm_term
        return loss

    def eval_step(self, step_outputs, target):
        outputs = step_outputs.contiguous().view(target.size(0), -1)
        self.acc_loss += self.criterion(outputs, target)
        self.norm_term += 1


class Perplexity(NLLLoss):
    """Token-averaged likelihood, reported as exp(nll)."""

    _MAX_EXP = 100

    def __init__(self, ignore_index=-100):
        super().__init__(ignore_index=ignore_index, size_average=False)

    def eval_step(self, outputs, target):
        self.acc_loss += self.criterion(outputs, target)
        if self.ignore_index == -100:
            self.norm_term += np.prod(target.size())
        else:
            self.norm_term += target.ne(self.ignore_index).sum().item()

    def get_loss(self):
        nll = super().get_loss() / self.norm_term
        return math.exp(min(nll, Perplexity._MAX_EXP))
