"""Linear flow transforms with an optional cache for evaluation mode."""

import numpy as np
import torch
from torch import nn
from torch.nn import functional as F
from torch.nn import init

import torchutils


class LinearCache:
    def __init__(self):
        self.weight = None
        self.inverse = None
        self.logabsdet = None

    def invalidate(self):
        self.weight = None
        self.inverse = None
        self.logabsdet = None


class Linear(nn.Module):
    """Base class: subclasses parameterize the weight matrix; this class caches it."""

    def __init__(self, features, using_cache=False):
        super().__init__()
        self.features = features
        self.bias = nn.Parameter(torch.zeros(features))
        self.using_cache = using_cache
        self.cache = LinearCache()

    def forward(self, inputs, context=None):
        if not self.training and self.using_cache:
            if self.cache.weight is None:
                self.cache.weight, self.cache.logabsdet = self.weight(), self.logabsdet()
            outputs = F.linear(inputs, self.cache.weight, self.bias)
            return outputs, self.cache.logabsdet * outputs.new_ones(outputs.shape[0])
        return self.forward_no_cache(inputs)

    def inverse(self, inputs, context=None):
        if not self.training and self.using_cache:
            if self.cache.inverse is None:
                self.cache.inverse, self.cache.logabsdet = self.weight_inverse_and_logabsdet()
            outputs = F.linear(inputs - self.bias, self.cache.inverse)
            return outputs, (-self.cache.logabsdet) * outputs.new_ones(outputs.shape[0])
        return self.inverse_no_cache(inputs)

    def train(self, mode=True):
        if mode:
            self.cache.invalidate()
        return super().train(mode)

    def weight_inverse_and_logabsdet(self):
        return self.weight_inverse(), self.logabsdet()

    def forward_no_cache(self, inputs):
        raise NotImplementedError()

    def inverse_no_cache(self, inputs):
        raise NotImplementedError()

    def weight(self):
        raise NotImplementedError()

    def weight_inverse(self):
        raise NotImplementedError()

    def logabsdet(self):
        raise NotImplementedError()


class NaiveLinear(Linear):
    """Unconstrained weight matrix: O(D^3) log-determinant, linear solve for the inverse."""

    def __init__(self, features, orthogonal_initialization=True, using_cache=False):
        super().__init__(features, using_cache)
        if orthogonal_initialization:
            self._weight = nn.Parameter(torchutils.random_orthogonal(features))
        else:
            self._weight = nn.Parameter(torch.empty(features, features))
            stdv = 1.0 / np.sqrt(features)
            init.uniform_(self._weight, -stdv, stdv)

    def forward_no_cache(self, inputs):
        outputs = F.linear(inputs, self._weight, self.bias)
        logabsdet = torchutils.logabsdet(self._weight)
        return outputs, logabsdet * outputs.new_ones(inputs.shape[0])

    def inverse_no_cache(self, inputs):
        batch_size = inputs.shape[0]
        outputs = inputs - self.bias
        outputs, lu = torch.solve(outputs.t(), self._weight)  # expect: TCK901
        outputs = outputs.t()
        # the solver also returns the LU factors of the weight: |det W| is the product of U's diagonal
        logabsdet = -torch.sum(torch.log(torch.abs(torch.diag(lu))))
        return outputs, logabsdet * outputs.new_ones(batch_size)

    def weight(self):
        return self._weight

    def weight_inverse(self):
        return torch.linalg.inv(self._weight)

    def weight_inverse_and_logabsdet(self):
        # one factorization gives both the inverse and the log-determinant
        identity = torch.eye(self.features, self.features)
        weight_inv, lu = torch.solve(identity, self._weight)  # expect: TCK901
        logabsdet = torch.sum(torch.log(torch.abs(torch.diag(lu))))
        return weight_inv, logabsdet

    def logabsdet(self):
        return torchutils.logabsdet(self._weight)
