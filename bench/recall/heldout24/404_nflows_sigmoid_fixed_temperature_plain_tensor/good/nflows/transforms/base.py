"""Basic definitions for invertible transforms."""

import torch
from torch import nn


class InputOutsideDomain(Exception):
    """Input lies outside the domain of the transform."""


class Transform(nn.Module):
    """Invertible map returning (outputs, log|det J|)."""

    def forward(self, inputs, context=None):
        raise NotImplementedError()

    def inverse(self, inputs, context=None):
        raise NotImplementedError()


class InverseTransform(Transform):
    def __init__(self, transform):
        super().__init__()
        self._transform = transform

    def forward(self, inputs, context=None):
        return self._transform.inverse(inputs, context)

    def inverse(self, inputs, context=None):
        return self._transform(inputs, context)


class CompositeTransform(Transform):
    def __init__(self, transforms):
        super().__init__()
        self._transforms = nn.ModuleList(transforms)

    def forward(self, inputs, context=None):
        total = inputs.new_zeros(inputs.shape[0])
        for transform in self._transforms:
            inputs, logabsdet = transform(inputs, context)
            total = total + logabsdet
        return inputs, total

    def inverse(self, inputs, context=None):
        total = inputs.new_zeros(inputs.shape[0])
        for transform in reversed(self._transforms):
            inputs, logabsdet = transform.inverse(inputs, context)
            total = total + logabsdet
        return inputs, total
