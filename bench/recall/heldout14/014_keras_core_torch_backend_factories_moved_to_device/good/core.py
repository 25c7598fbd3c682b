import torch

DEFAULT_DEVICE = "cuda" if torch.cuda.is_available() else "cpu"
_DTYPES = {"float16": torch.float16, "bfloat16": torch.bfloat16, "float32": torch.float32,
           "float64": torch.float64, "int32": torch.int32, "int64": torch.int64, "bool": torch.bool}


def get_device():
    """The device every backend tensor lives on (can be switched to "meta" for symbolic runs)."""
    return DEFAULT_DEVICE


def to_torch_dtype(dtype):
    if dtype is None or isinstance(dtype, torch.dtype):
        return dtype
    return _DTYPES[dtype]


def convert_to_tensor(x, dtype=None):
    if isinstance(x, torch.Tensor):
        return x if dtype is None else x.to(to_torch_dtype(dtype))
    return torch.as_tensor(x, dtype=to_torch_dtype(dtype), device=get_device())
