import torch
from torch import Tensor


def standardize(y: Tensor) -> Tensor:
    std = y.std(dim=0)
    std = torch.where(std >= 1e-9, std, torch.ones_like(std))
    return (y - y.mean(dim=0)) / std


def gen_initial_conditions(acq_function, bounds: Tensor, num_restarts: int, raw_samples: int, options=None):
    options = options or {}
    dim = bounds.shape[-1]
    lower, upper = bounds[0], bounds[1]
    raw = lower + (upper - lower) * torch.rand(raw_samples, 1, dim, dtype=bounds.dtype)
    with torch.no_grad():
        fantasy_vals = acq_function(raw)
    eta = options.get("eta", 2.0)
    probs = torch.nn.functional.softmax(eta * standardize(fantasy_vals), dim=0)
    idx = torch.multinomial(probs, num_restarts)
    return raw[idx]
