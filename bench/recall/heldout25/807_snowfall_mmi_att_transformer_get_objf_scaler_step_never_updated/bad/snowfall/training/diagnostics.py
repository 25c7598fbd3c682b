"""Training diagnostics: gradient norms and relative parameter change per update."""
from typing import Dict, Optional

import torch
from torch import nn


def l2_norm(x: torch.Tensor) -> torch.Tensor:
    return torch.sqrt(torch.sum(x * x))


def measure_gradient_norms(model: nn.Module, norm: str = "l1") -> Dict[str, float]:
    norms = {}
    with torch.no_grad():
        for name, param in model.named_parameters():
            if param.grad is not None:
                g = param.grad
                norms[name] = (g.abs().sum() if norm == "l1" else l2_norm(g)).item()
    return norms


def optim_step_and_measure_param_change(model: nn.Module, optimizer: torch.optim.Optimizer,
                                        scaler: Optional[torch.amp.GradScaler] = None) -> Dict[str, float]:
    """Step the optimizer and return ||theta - theta_new|| / ||theta|| for every parameter."""
    param_copy = {n: p.detach().clone() for n, p in model.named_parameters()}
    if scaler:
        scaler.step(optimizer)
    else:
        optimizer.step()
    relative_change = {}
    with torch.no_grad():
        for n, p_new in model.named_parameters():
            relative_change[n] = (l2_norm(param_copy[n] - p_new) / l2_norm(param_copy[n])).item()
    return relative_change
