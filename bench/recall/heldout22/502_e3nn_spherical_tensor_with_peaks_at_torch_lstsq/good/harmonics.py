import math

import torch


def spherical_harmonics(lmax, vectors, normalize=True):
    """Real spherical harmonics up to l = 2, concatenated as [Y0 | Y1 | Y2] (dimension (lmax + 1) ** 2)."""
    if lmax > 2:
        raise NotImplementedError("this helper only goes up to l = 2")
    if normalize:
        vectors = vectors / vectors.norm(dim=-1, keepdim=True).clamp_min(1e-12)
    x, y, z = vectors.unbind(-1)
    parts = [torch.ones_like(x)[..., None] / math.sqrt(4 * math.pi)]
    if lmax >= 1:
        c1 = math.sqrt(3 / (4 * math.pi))
        parts.append(c1 * torch.stack([y, z, x], dim=-1))
    if lmax >= 2:
        c2 = math.sqrt(15 / (4 * math.pi))
        c20 = math.sqrt(5 / (16 * math.pi))
        parts.append(torch.stack([
            c2 * x * y,
            c2 * y * z,
            c20 * (3 * z ** 2 - 1),
            c2 * x * z,
            c2 / 2 * (x ** 2 - y ** 2),
        ], dim=-1))
    return torch.cat(parts, dim=-1)
