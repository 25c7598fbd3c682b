"""Outputs that compare every sample with every other by construction.

A contrastive model's similarity logits (``image_embeds @ text_embeds.T``) have one
row and one column per sample: entry ``[i, j]`` depends on samples ``i`` and ``j``.
That is mixing by design, not a leak, and assert_batch_independent names it so.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

import torch

__all__ = ["all_pairs_dim", "describe_all_pairs", "output_name"]

#: ``peaks(loss, i)``: for a scalar ``loss`` read from output sample ``i``, the greatest
#: |gradient| at each input sample, or ``None`` when a gradient is not finite.
SamplePeaks = Callable[[torch.Tensor, int], "Sequence[float] | None"]


def all_pairs_dim(
    output: torch.Tensor, dim: int, batch: int, peaks: SamplePeaks, rtol: float, atol: float
) -> int | None:
    """The second batch-sized dimension of ``output`` along which it pairs samples, or
    ``None``. Pairing means: entry ``[i, j]`` depends on samples ``i`` and ``j`` and
    no other (the diagonal on sample ``i`` alone), and some entry off the diagonal
    does depend on its column's sample. A square output that mixes through a batch
    mean fails the first test, one with a batch-sized feature axis the second."""
    if not output.requires_grad:
        return None
    for pair_dim in range(output.dim()):
        if pair_dim != dim and output.shape[pair_dim] == batch and _pairs_along(
            output, dim, pair_dim, batch, peaks, rtol, atol
        ):
            return pair_dim
    return None


def _pairs_along(
    output: torch.Tensor, dim: int, pair_dim: int, batch: int, peaks: SamplePeaks, rtol: float, atol: float
) -> bool:
    column_dim = pair_dim - 1 if pair_dim > dim else pair_dim
    generator = torch.Generator().manual_seed(0)
    weight = torch.randn(output.select(dim, 0).select(column_dim, 0).shape, generator=generator)
    weight = weight.to(output.device, output.dtype)
    column_read = False
    for i in range(batch):
        for j in range(batch):
            found = peaks((output.select(dim, i).select(column_dim, j) * weight).sum(), i)
            if found is None:
                return False
            allowed = atol + rtol * max(found[i], found[j])
            depends_on = {k for k, peak in enumerate(found) if peak > allowed}
            if not depends_on <= {i, j}:
                return False
            column_read = column_read or (i != j and j in depends_on)
    return column_read


def describe_all_pairs(path: str, output: torch.Tensor, dim: int, pair_dim: int) -> str:
    """``output `logits_per_image` compares every sample with every other (shape (4, 4) = (B, B))``."""
    symbols = ", ".join("B" if d in (dim, pair_dim) else str(size) for d, size in enumerate(output.shape))
    shape = ", ".join(str(size) for size in output.shape)
    return f"{_named(path)} compares every sample with every other (shape ({shape}) = ({symbols}))"


def output_name(path: str) -> str:
    """``logits_per_image`` for ``output.logits_per_image`` or ``output['logits_per_image']``."""
    return re.sub(r"\['([^']*)'\]", r".\1", path.removeprefix("output")).lstrip(".")


def _named(path: str) -> str:
    name = output_name(path)
    return f"output `{name}`" if name else "the output"
