"""Element-wise rational-quadratic CDF with learned, input-independent knots."""

import numpy as np
import torch
from torch import nn

from normflow.utils import splines


class PiecewiseRationalQuadraticCDF(nn.Module):
    def __init__(self, shape, num_bins=10, tails=None, tail_bound=1.0, identity_init=True,
                 min_bin_width=splines.DEFAULT_MIN_BIN_WIDTH, min_bin_height=splines.DEFAULT_MIN_BIN_HEIGHT,
                 min_derivative=splines.DEFAULT_MIN_DERIVATIVE):
        super().__init__()
        self.min_bin_width = min_bin_width
        self.min_bin_height = min_bin_height
        self.min_derivative = min_derivative
        self.tail_bound = tail_bound
        self.tails = tails   # "linear", "circular" or one of those per dimension

        num_derivatives = (num_bins - 1) if self.tails == "linear" else (num_bins + 1)
        if identity_init:
            constant = np.log(np.exp(1 - min_derivative) - 1)
            self.unnormalized_widths = nn.Parameter(torch.zeros(*shape, num_bins))
            self.unnormalized_heights = nn.Parameter(torch.zeros(*shape, num_bins))
            self.unnormalized_derivatives = nn.Parameter(constant * torch.ones(*shape, num_derivatives))
        else:
            self.unnormalized_widths = nn.Parameter(torch.rand(*shape, num_bins))
            self.unnormalized_heights = nn.Parameter(torch.rand(*shape, num_bins))
            self.unnormalized_derivatives = nn.Parameter(torch.rand(*shape, num_derivatives))

    @staticmethod
    def _share_across_batch(params, batch_size):
        return params[None, ...].expand(batch_size, *params.shape)

    def _spline(self, inputs, inverse=False):
        batch_size = inputs.shape[0]
        outputs, logabsdet = splines.unconstrained_rational_quadratic_spline(
            inputs=inputs,
            unnormalized_widths=self._share_across_batch(self.unnormalized_widths, batch_size),
            unnormalized_heights=self._share_across_batch(self.unnormalized_heights, batch_size),
            unnormalized_derivatives=self._share_across_batch(self.unnormalized_derivatives, batch_size),
            inverse=inverse, tails=self.tails, tail_bound=self.tail_bound,
            min_bin_width=self.min_bin_width, min_bin_height=self.min_bin_height,
            min_derivative=self.min_derivative,
        )
        return outputs, logabsdet.reshape(batch_size, -1).sum(-1)

    def forward(self, inputs, context=None):
        return self._spline(inputs, inverse=False)

    def inverse(self, inputs, context=None):
        return self._spline(inputs, inverse=True)
