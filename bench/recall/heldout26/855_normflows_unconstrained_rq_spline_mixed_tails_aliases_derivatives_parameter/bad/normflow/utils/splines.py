"""Rational-quadratic spline transforms with linear or circular tails (Durkan et al., 2019)."""

import numpy as np
import torch
from torch.nn import functional as F

DEFAULT_MIN_BIN_WIDTH = 1e-3
DEFAULT_MIN_BIN_HEIGHT = 1e-3
DEFAULT_MIN_DERIVATIVE = 1e-3


def unconstrained_rational_quadratic_spline(inputs, unnormalized_widths, unnormalized_heights,
                                            unnormalized_derivatives, inverse=False, tails="linear",
                                            tail_bound=1.0, min_bin_width=DEFAULT_MIN_BIN_WIDTH,
                                            min_bin_height=DEFAULT_MIN_BIN_HEIGHT,
                                            min_derivative=DEFAULT_MIN_DERIVATIVE):
    inside = (inputs >= -tail_bound) & (inputs <= tail_bound)
    outside = ~inside
    outputs = torch.zeros_like(inputs)
    logabsdet = torch.zeros_like(inputs)
    constant = np.log(np.exp(1 - min_derivative) - 1)

    if tails == "linear":
        derivs = F.pad(unnormalized_derivatives, pad=(1, 1))
        derivs[..., 0] = constant
        derivs[..., -1] = constant
        outputs[outside] = inputs[outside]
    elif tails == "circular":
        derivs = F.pad(unnormalized_derivatives, pad=(0, 1))
        derivs[..., -1] = derivs[..., 0]
        outputs[outside] = inputs[outside]
    elif isinstance(tails, (list, tuple)):
        # one tail type per dimension: the derivatives already have num_bins + 1 entries
        derivs = unnormalized_derivatives  # expect: TCK701
        ind_lin = [t == "linear" for t in tails]
        ind_circ = [t == "circular" for t in tails]
        derivs[..., ind_lin, 0] = constant
        derivs[..., ind_lin, -1] = constant
        derivs[..., ind_circ, -1] = derivs[..., ind_circ, 0]
    else:
        raise RuntimeError("{} tails are not implemented.".format(tails))

    outputs[inside], logabsdet[inside] = rational_quadratic_spline(
        inputs=inputs[inside],
        unnormalized_widths=unnormalized_widths[inside, :],
        unnormalized_heights=unnormalized_heights[inside, :],
        unnormalized_derivatives=derivs[inside, :],
        inverse=inverse, left=-tail_bound, right=tail_bound, bottom=-tail_bound, top=tail_bound,
        min_bin_width=min_bin_width, min_bin_height=min_bin_height, min_derivative=min_derivative,
    )
    return outputs, logabsdet


def rational_quadratic_spline(inputs, unnormalized_widths, unnormalized_heights, unnormalized_derivatives,
                              inverse=False, left=0.0, right=1.0, bottom=0.0, top=1.0,
                              min_bin_width=DEFAULT_MIN_BIN_WIDTH, min_bin_height=DEFAULT_MIN_BIN_HEIGHT,
                              min_derivative=DEFAULT_MIN_DERIVATIVE):
    num_bins = unnormalized_widths.shape[-1]
    widths = min_bin_width + (1 - min_bin_width * num_bins) * F.softmax(unnormalized_widths, dim=-1)
    heights = min_bin_height + (1 - min_bin_height * num_bins) * F.softmax(unnormalized_heights, dim=-1)
    derivatives = min_derivative + F.softplus(unnormalized_derivatives)

    cumwidths = F.pad(torch.cumsum(widths, dim=-1), pad=(1, 0)) * (right - left) + left
    cumheights = F.pad(torch.cumsum(heights, dim=-1), pad=(1, 0)) * (top - bottom) + bottom
    knots = cumheights if inverse else cumwidths
    idx = (torch.sum(inputs[..., None] >= knots[..., 1:-1], dim=-1))[..., None]

    x_k = cumwidths.gather(-1, idx)[..., 0]
    w_k = (cumwidths[..., 1:] - cumwidths[..., :-1]).gather(-1, idx)[..., 0]
    y_k = cumheights.gather(-1, idx)[..., 0]
    h_k = (cumheights[..., 1:] - cumheights[..., :-1]).gather(-1, idx)[..., 0]
    d_k = derivatives.gather(-1, idx)[..., 0]
    d_k1 = derivatives[..., 1:].gather(-1, idx)[..., 0]
    s_k = h_k / w_k

    if inverse:
        y = inputs - y_k
        a = h_k * (s_k - d_k) + y * (d_k1 + d_k - 2 * s_k)
        b = h_k * d_k - y * (d_k1 + d_k - 2 * s_k)
        c = -s_k * y
        theta = (2 * c) / (-b - torch.sqrt(b.pow(2) - 4 * a * c))
        outputs = theta * w_k + x_k
    else:
        theta = (inputs - x_k) / w_k
        outputs = y_k + h_k * (s_k * theta.pow(2) + d_k * theta * (1 - theta)) / (
            s_k + (d_k1 + d_k - 2 * s_k) * theta * (1 - theta))

    t1mt = theta * (1 - theta)
    denom = s_k + (d_k1 + d_k - 2 * s_k) * t1mt
    num = s_k.pow(2) * (d_k1 * theta.pow(2) + 2 * s_k * t1mt + d_k * (1 - theta).pow(2))
    logabsdet = torch.log(num) - 2 * torch.log(denom)
    return outputs, (-logabsdet if inverse else logabsdet)
