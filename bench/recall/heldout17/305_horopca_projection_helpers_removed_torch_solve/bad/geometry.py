"""Projections used by the hyperbolic PCA methods (Poincare ball / hyperboloid models)."""

import torch


def minkowski_pairing(a, b):
    """Pairwise Minkowski bilinear form: -a0*b0 + a1*b1 + ... for rows of a and b."""
    signs = torch.ones(a.shape[-1], dtype=a.dtype, device=a.device)
    signs[0] = -1.0
    return (a * signs) @ b.transpose(-1, -2)


def orthogonal_projection(basis, x):
    """Minkowski-orthogonal projection of the rows of x onto span(basis)."""
    gram = minkowski_pairing(basis, basis)  # (k, k)
    rhs = minkowski_pairing(basis, x)  # (k, batch)
    coefs, _ = torch.solve(rhs, gram)  # expect: TCK901
    return coefs.transpose(-1, -2) @ basis


def horo_projection(ideals, x):
    """Project points of the Poincare ball onto the geodesic submanifold spanned by ideal points."""
    p = ideals[0] / ideals[0].norm()
    coefs, _ = torch.solve(ideals @ x.transpose(0, 1), ideals @ ideals.transpose(0, 1))  # expect: TCK901
    eucl_projs = coefs.transpose(0, 1) @ ideals
    t = ((p - x) ** 2).sum(-1) / (2 * ((p - eucl_projs) * (p - x)).sum(-1))
    t = t.unsqueeze(-1)
    return 2 * t * eucl_projs + (1 - 2 * t) * p.unsqueeze(0)
