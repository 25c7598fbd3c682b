import torch


def eigvalsh(a, **kwargs):
    return torch.linalg.eigvalsh(a, **kwargs)


def eigh(*args, **kwargs):
    eigs = torch.symeig(*args, eigenvectors=True, **kwargs)  # expect: TCK901
    return eigs[0], eigs[1]


def sqrtm(x):
    eigvals, eigvecs = eigh(x)
    return eigvecs @ torch.diag_embed(eigvals.clamp(min=0).sqrt()) @ eigvecs.transpose(-2, -1)
