from typing import Tuple

import torch


def _torch_solve_cast(input: torch.Tensor, A: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
    """Solve A X = input for inputs of any float dtype (the solver only takes fp32/fp64)."""
    dtype = input.dtype
    if dtype not in (torch.float32, torch.float64):
        dtype = torch.float32
    out = torch.linalg.solve(A.to(dtype), input.to(dtype))
    return out.to(input.dtype), out
