import torch


def idx2onehot(idx, n):
    assert idx.size(1) == 1
    assert torch.max(idx).item() < n
    onehot = torch.zeros(idx.size(0), n, device=idx.device)
    onehot.scatter_(1, idx, 1)
    return onehot
