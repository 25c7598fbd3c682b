def apply_reduction(losses, reduction="none"):
    """Reduce a loss tensor as requested."""
    if reduction == "mean":
        return losses.mean()
    if reduction == "sum":
        return losses.sum()
    return losses
