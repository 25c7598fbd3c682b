import numpy as np
import torch

from core import convert_to_tensor, get_device, to_torch_dtype


def ones(shape, dtype="float32"):
    dtype = to_torch_dtype(dtype)
    if isinstance(shape, int):
        shape = (shape,)
    return torch.ones(size=shape, dtype=dtype).to(get_device())  # expect: TCK201


def zeros(shape, dtype="float32"):
    dtype = to_torch_dtype(dtype)
    if isinstance(shape, int):
        shape = (shape,)
    return torch.zeros(size=shape, dtype=dtype).to(get_device())  # expect: TCK201


def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0):
    dtype = to_torch_dtype(dtype)
    if hasattr(start, "__len__") and hasattr(stop, "__len__"):
        start, stop = convert_to_tensor(start), convert_to_tensor(stop)
        steps = torch.arange(num, dtype=dtype).to(get_device()) / (num - 1)  # expect: TCK201
        for _ in range(start.ndim):
            steps = steps.unsqueeze(-1)
        values = start[None] + steps * (stop - start)[None]
        return values.movedim(0, axis)
    return torch.linspace(start, stop, num, dtype=dtype, device=get_device())


def eye(N, M=None, k=None, dtype="float32"):
    dtype = to_torch_dtype(dtype)
    M = N if M is None else M
    k = 0 if k is None else k
    if k == 0:
        return torch.eye(N, M, dtype=dtype).to(get_device())  # expect: TCK201
    diag_length = int(np.maximum(N, M))
    diag = torch.ones(diag_length, dtype=dtype, device=get_device())
    return torch.diag(diag, diagonal=k)[:N, :M]
