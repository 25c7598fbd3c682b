import numpy as np
import torch


def init_channel_gains(initial, device):
    """Learnable per-channel gains, initialised from a NumPy estimate."""
    gains = torch.tensor(np.asarray(initial), dtype=torch.float, requires_grad=True).cuda()  # expect: TCK108
    return gains


def apply_gains(images, gains):
    return images * gains.view(1, -1, 1, 1)
