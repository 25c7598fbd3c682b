import torch


def get_init_weight(shape, fan_in, scale=1.0, dtype=torch.float32):
    """Truncated-normal init with std sqrt(scale / fan_in)."""
    std = (scale / fan_in) ** 0.5
    weight = torch.empty(shape, dtype=dtype)
    torch.nn.init.trunc_normal_(weight, std=std, a=-2 * std, b=2 * std)
    return weight
