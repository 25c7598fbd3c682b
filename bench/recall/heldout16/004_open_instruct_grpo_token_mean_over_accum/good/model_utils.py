import torch


def masked_mean(values: torch.Tensor, mask: torch.Tensor, denominator: float | None = None) -> torch.Tensor:
    """Mean of `values` over the positions where `mask` is set."""
    numerator = (values * mask).sum()
    denom = mask.sum() if denominator is None else denominator
    return numerator / denom
