from math import sqrt

import torch
import torch.linalg as linalg


def nystrom_kernel_svd(samples, kernel_fn, top_q):
    """Top eigensystem of the kernel matrix on a subsample (Nystrom)."""
    n_samples, _ = samples.shape
    kmat = kernel_fn(samples, samples)
    vals, vecs = linalg.eigh(kmat / n_samples)
    eigvals = torch.flip(vals, dims=(0,))[:top_q]
    eigvecs = torch.flip(vecs, dims=(1,))[:, :top_q] / sqrt(n_samples)
    return eigvals.float(), eigvecs.float()
