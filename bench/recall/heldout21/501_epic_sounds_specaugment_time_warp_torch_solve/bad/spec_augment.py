import random

import torch

from sparse_image_warp import sparse_image_warp


def time_warp(spec, W=5):
    # spec: [1, n_mels, T]
    n_mels, length = spec.shape[1], spec.shape[2]
    centre_row = n_mels // 2
    anchor = random.randrange(W, length - W)
    shift = random.randrange(-W, W)
    src = torch.tensor([[[float(centre_row), float(anchor)]]], device=spec.device)
    dst = torch.tensor([[[float(centre_row), float(anchor + shift)]]], device=spec.device)
    warped, _ = sparse_image_warp(spec, src, dst)
    return warped


def freq_mask(spec, F=27, num_masks=1):
    out = spec.clone()
    n_mels = out.shape[1]
    for _ in range(num_masks):
        width = random.randrange(0, F)
        start = random.randrange(0, n_mels - width)
        if width == 0:
            return out
        out[0, start:start + width] = out.mean()
    return out


def time_mask(spec, T=25, num_masks=1):
    out = spec.clone()
    length = out.shape[2]
    for _ in range(num_masks):
        width = random.randrange(0, T)
        start = random.randrange(0, length - width)
        if width == 0:
            return out
        out[0, :, start:start + width] = out.mean()
    return out


def combined_transforms(spec):
    return time_mask(freq_mask(time_warp(spec), num_masks=2), num_masks=2)
