import torch
import torch.nn.functional as F


def _autocorrelation(x, filter_length):
    # x: (..., T) -> Toeplitz autocorrelation matrix (..., L, L)
    T = x.shape[-1]
    r = torch.stack([(x[..., : T - lag] * x[..., lag:]).sum(-1) for lag in range(filter_length)], dim=-1)
    idx = (torch.arange(filter_length)[:, None] - torch.arange(filter_length)[None, :]).abs()
    return r[..., idx]


def _crosscorrelation(x, y, filter_length):
    T = x.shape[-1]
    return torch.stack([(x[..., : T - lag] * y[..., lag:]).sum(-1) for lag in range(filter_length)], dim=-1)


def wiener_filter_predict_single_input(observation, desired, filter_order=512, eps=1e-8):
    R = _autocorrelation(observation, filter_order)
    R = R + eps * torch.eye(filter_order, dtype=R.dtype, device=R.device)
    p = _crosscorrelation(observation, desired, filter_order)
    w = torch.linalg.solve(R, p[..., None])
    w = w.squeeze(-1)
    padded = F.pad(observation, (filter_order - 1, 0))
    frames = padded.unfold(-1, filter_order, 1).flip(-1)
    return (frames * w[..., None, :]).sum(-1)
