import torch

# Accepts lists, numbers or tensors and returns a tensor.
ensure_tensor = torch.tensor


def as_float_list(values):
    return [float(v) for v in values]
