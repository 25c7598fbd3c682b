"""Gradient elements that are rounding noise, and the updates they drive.

Some gradients are zero in exact arithmetic and about 1e-9 in float32: a key bias before a
softmax (adding a constant to every score of a query changes nothing), a unit no sample
reaches. Two runs that must agree (micro-batches and the whole batch, compiled and eager
code) round differently, so such an element's gradient has a different sign and size in
each. Plain SGD turns that into negligible updates, but a normalising optimizer (Adam,
RMSprop, Adafactor, Lion) divides by the gradient's own size and turns the noise into full
steps of ``lr`` that need not agree. The comparison of the steps leaves those elements
out: every check that compares parameters after an optimizer step asks this module.
"""

from __future__ import annotations

from collections.abc import Mapping

import torch

from torchcheck.checks._compare import default_tolerance

__all__ = ["NOISE_FRACTION", "add_noise", "largest_gradient", "noise_floor", "noise_level_elements", "without_noise"]

#: Below this fraction of the model's largest gradient (at least the dtype's rtol), an
#: element's gradient is rounding noise.
NOISE_FRACTION = 1e-6

Gradients = Mapping[str, "torch.Tensor | None"]


def largest_gradient(gradients: Gradients) -> float:
    """The largest absolute gradient element of the whole model."""
    return max((float(g.abs().max()) for g in gradients.values() if g is not None and g.numel()), default=0.0)


def noise_floor(dtype: torch.dtype, largest: float) -> float:
    rtol, _ = default_tolerance(dtype)
    return max(NOISE_FRACTION, rtol) * largest


def noise_level_elements(expected: Gradients, actual: Gradients) -> dict[str, torch.Tensor]:
    """Per parameter, a mask of the elements whose gradient is at most the noise floor in
    both runs (the floor from ``expected``'s largest gradient); parameters without such
    elements are absent."""
    largest = largest_gradient(expected)
    noise = {}
    for name, gradient in expected.items():
        other = actual.get(name)
        if gradient is None or other is None or other.shape != gradient.shape or not gradient.is_floating_point():
            continue
        floor = noise_floor(gradient.dtype, largest)
        below = (gradient.abs() <= floor) & (other.abs() <= floor)
        if bool(below.any()):
            noise[name] = below
    return noise


def without_noise(
    actual: Mapping[str, torch.Tensor], expected: Mapping[str, torch.Tensor], noise: Mapping[str, torch.Tensor]
) -> dict[str, torch.Tensor]:
    """``actual`` with the noise-level elements set to ``expected``'s values."""
    return {
        name: torch.where(noise[name].to(value.device), expected[name].to(value.device), value) if name in noise else value
        for name, value in actual.items()
    }


def add_noise(noise: dict[str, torch.Tensor], found: Mapping[str, torch.Tensor]) -> None:
    """Once a normalising optimizer has stepped an element on noise, that element's
    trajectory differs between the runs for good: over several steps the masks add up."""
    for name, mask in found.items():
        noise[name] = noise[name] | mask if name in noise else mask
