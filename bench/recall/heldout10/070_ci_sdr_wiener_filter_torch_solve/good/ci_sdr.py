import torch

from wiener_filter import wiener_filter_predict_single_input


def ci_sdr_loss(estimation, reference, filter_length=512):
    """Convolutive transfer function invariant SDR (negated, for minimisation)."""
    target = wiener_filter_predict_single_input(reference, estimation, filter_order=filter_length)
    error = estimation - target
    sdr = 10 * torch.log10((target ** 2).sum(-1) / (error ** 2).sum(-1).clamp_min(1e-10))
    return -sdr
