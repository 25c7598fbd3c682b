from typing import List, Optional, Tuple

import torch
from torch import Tensor


def native_layer_norm_backward(
    grad_out: Tensor,
    input: Tensor,
    normalized_shape: List[int],
    mean: Tensor,
    rstd: Tensor,
    weight: Optional[Tensor],
    bias: Optional[Tensor],
) -> Tuple[Tensor, Optional[Tensor], Optional[Tensor]]:
    axis = input.dim() - len(normalized_shape)
    inner_dims = list(range(axis, input.dim()))
    n = 1
    for s in normalized_shape:
        n *= s
    x_hat = (input - mean) * rstd
    grad_x_hat = grad_out * weight if weight is not None else grad_out
    a = grad_x_hat * n
    b = grad_x_hat.sum(dim=inner_dims, keepdim=True)
    c = (grad_x_hat * x_hat).sum(dim=inner_dims, keepdim=True)
    grad_input = (rstd / n) * (a - b - x_hat * c)
    grad_weight = (grad_out * x_hat).sum(dim=list(range(axis))) if weight is not None else None
    grad_bias = grad_out.sum(dim=list(range(axis))) if bias is not None else None
    return grad_input, grad_weight, grad_bias


def layer_norm_jvp_decomp(input: Tensor, normalized_shape: List[int], weight, bias, eps: float = 1e-5):
    axis = input.dim() - len(normalized_shape)
    inner_dims = list(range(axis, input.dim()))
    mean = input.mean(dim=inner_dims, keepdim=True)
    var = input.var(dim=inner_dims, unbiased=False, keepdim=True)
    rstd = torch.rsqrt(var + eps)
    out = (input - mean) * rstd
    if weight is not None:
        out = out * weight
    if bias is not None:
        out = out + bias
    return out, mean, rstd
