import torch

from so import SO


class Stiefel(SO):
    def __init__(self, size):
        super().__init__(size)
        self.k = size[-1]
        self.n_rows = size[-2]

    def right_inverse(self, x, check_in_manifold=True):
        if self.n_rows != self.k:
            n = torch.empty(x.shape[:-1] + (self.n_rows - self.k,), dtype=x.dtype, device=x.device)
            n.normal_()
            for _ in range(2):
                n = n - x @ (x.transpose(-2, -1) @ n)
                n = torch.linalg.qr(n).Q
            x = torch.cat([x, n], dim=-1)
        return super().right_inverse(x, check_in_manifold=False)[..., : self.k]
