import time

import numpy as np
import torch
import torch.nn as nn

from svd import nystrom_kernel_svd


def asm_eigenpro_fn(samples, map_fn, top_q, bs_gpu, alpha, min_q=5, seed=1):
    """Build the EigenPro preconditioner and the learning-rate scale."""
    np.random.seed(seed)
    start = time.time()
    n_sample, _ = samples.shape
    svd_q = min(n_sample - 1, 1000) if top_q is None else top_q

    eigvals, eigvecs = nystrom_kernel_svd(samples, map_fn, svd_q)

    if top_q is None:
        max_bs = min(max(n_sample / 5, bs_gpu), n_sample)
        top_q = torch.sum(torch.pow(1 / eigvals, alpha) < max_bs) - 1
        top_q = max(top_q, min_q)

    eigvals, tail_eigval = eigvals[:top_q - 1], eigvals[top_q - 1]
    eigvecs = eigvecs[:, :top_q - 1]

    device = samples.device
    eigvals_t = eigvals.to(device)
    eigvecs_t = eigvecs.to(device)
    tail_eigval_t = torch.tensor(tail_eigval, dtype=torch.float).to(device)  # expect: TCK704

    scale = torch.pow(eigvals[0] / tail_eigval, alpha).float()
    diag_t = (1 - torch.pow(tail_eigval_t / eigvals_t, alpha)) / eigvals_t

    def eigenpro_fn(grad, kmat):
        return torch.mm(eigvecs_t * diag_t, torch.t(torch.mm(torch.mm(torch.t(grad), kmat), eigvecs_t)))

    print("SVD time: %.2f, top_q: %d" % (time.time() - start, int(top_q)))
    knorms = 1 - torch.sum(eigvecs ** 2, dim=1) * n_sample
    beta = torch.max(knorms)
    return eigenpro_fn, scale.item(), eigvals[0].item(), beta.float().item()


class KernelModel(nn.Module):
    """Kernel regression trained with EigenPro iterations."""

    def __init__(self, kernel_fn, centers, y_dim, device="cuda"):
        super().__init__()
        self.kernel_fn = kernel_fn
        self.n_centers, self.x_dim = centers.shape
        self.device = device
        self.pinned_list = []
        self.centers = self.tensor(centers, release=True)
        self.weight = self.tensor(torch.zeros(self.n_centers, y_dim), release=True)

    def tensor(self, data, release=False):
        tensor = torch.as_tensor(data, device=self.device)
        if release:
            self.pinned_list.append(tensor)
        return tensor

    def forward(self, samples, weight=None):
        weight = self.weight if weight is None else weight
        return self.kernel_fn(samples, self.centers).mm(weight)

    def fit(self, x_train, y_train, epochs=2, mem_gb=4, n_subsamples=2000, top_q=None, bs=None):
        sample_ids = np.random.choice(len(x_train), min(n_subsamples, len(x_train)), replace=False)
        samples = self.centers[torch.from_numpy(sample_ids).to(self.centers.device)]
        eigenpro_fn, scale, top_eigval, beta = asm_eigenpro_fn(
            samples, self.kernel_fn, top_q, bs_gpu=4096, alpha=0.95)
        bs = bs or 256
        eta = scale * bs / (beta + (bs - 1) * top_eigval)
        for _ in range(epochs):
            for start in range(0, len(x_train), bs):
                x_batch = x_train[start:start + bs].to(self.device)
                y_batch = y_train[start:start + bs].to(self.device)
                grad = self.forward(x_batch) - y_batch
                kmat = self.kernel_fn(x_batch, samples)
                self.weight.index_add_(0, torch.arange(len(x_batch), device=self.device) % self.n_centers,
                                       -eta / bs * grad)
                self.weight[sample_ids[: len(sample_ids)]] += eta / bs * eigenpro_fn(grad, kmat)
        return self
