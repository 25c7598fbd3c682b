import numpy as np
import torch


def geom_noise_mask_single(length, lm, masking_ratio):
    """Boolean mask (True = keep) whose masked stretches have geometric lengths of mean `lm`."""
    keep = np.ones(length, dtype=bool)
    p_mask = 1 / lm
    p_unmask = p_mask * masking_ratio / (1 - masking_ratio)
    state = int(np.random.rand() > masking_ratio)
    for i in range(length):
        keep[i] = bool(state)
        if np.random.rand() < (p_mask if state == 0 else p_unmask):
            state = 1 - state
    return keep


def data_transform_masked4cl(sample, masking_ratio, lm, positive_nums=1):
    """Repeat each series `positive_nums` times and zero out random stretches of every copy."""
    sample = sample.repeat(positive_nums, 1, 1)
    masks = np.stack([
        np.stack([geom_noise_mask_single(sample.shape[2], lm, masking_ratio) for _ in range(sample.shape[1])])
        for _ in range(sample.shape[0])
    ])
    mask = torch.from_numpy(masks).to(sample.device)
    return sample * mask, mask
