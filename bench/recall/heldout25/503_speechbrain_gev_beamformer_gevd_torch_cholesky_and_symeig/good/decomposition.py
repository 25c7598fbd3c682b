"""Eigendecompositions of complex Hermitian matrices stored as (real, imag) upper triangles."""

import torch


def f(ws):
    """Upper-triangular complex matrix (*, 2, C+P) -> real block matrix (*, 2C, 2C)."""
    D = ws.dim()
    ws = ws.transpose(D - 2, D - 1)
    P = ws.shape[D - 2]
    C = int(round(((1 + 8 * P) ** 0.5 - 1) / 2))
    wsh = torch.zeros(ws.shape[0:(D - 2)] + (2 * C, 2 * C), dtype=ws.dtype, device=ws.device)
    ids = torch.triu_indices(C, C)
    for r, c in ((ids[0], ids[1]), (ids[1], ids[0])):
        wsh[..., r * 2, c * 2] = ws[..., 0]
        wsh[..., r * 2 + 1, c * 2 + 1] = ws[..., 0]
    wsh[..., ids[0] * 2, ids[1] * 2 + 1] = -ws[..., 1]
    wsh[..., ids[1] * 2 + 1, ids[0] * 2] = -ws[..., 1]
    wsh[..., ids[0] * 2 + 1, ids[1] * 2] = ws[..., 1]
    wsh[..., ids[1] * 2, ids[0] * 2 + 1] = ws[..., 1]
    return wsh


def ginv(wsh):
    """Real block matrix (*, 2C, 2C) -> full complex matrix (*, C, C, 2)."""
    real = wsh[..., 0::2, 0::2]
    imag = wsh[..., 1::2, 0::2]
    return torch.stack((real, imag), dim=-1)


def pos_def(ws, alpha=0.001, eps=1e-20):
    """Adds a small multiple of the trace to the diagonal so that ws is positive definite."""
    D = ws.dim()
    P = ws.shape[D - 1]
    C = int(round(((1 + 8 * P) ** 0.5 - 1) / 2))
    ids = torch.triu_indices(C, C)
    diag = ids[0] == ids[1]
    trace = torch.sum(ws[..., 0, diag], dim=D - 2, keepdim=True)
    out = ws.clone()
    out[..., 0, diag] = out[..., 0, diag] + (alpha * trace + eps)
    return out


def gevd(a, b=None):
    """Generalized eigendecomposition A V = B V D of complex Hermitian matrices.

    Returns the eigenvectors and the eigenvalues, both as (*, C, C, 2).
    """
    D = a.dim()
    P = a.shape[D - 1]
    C = int(round(((1 + 8 * P) ** 0.5 - 1) / 2))
    ash = f(a)
    if b is None:
        b = torch.zeros(a.shape, dtype=a.dtype, device=a.device)
        ids = torch.triu_indices(C, C)
        b[..., 0, ids[0] == ids[1]] = 1.0
    bsh = f(b)

    # reduce to a standard problem with the Cholesky factor of B
    lsh = torch.linalg.cholesky(bsh)
    lsh_inv = torch.inverse(lsh)
    lsh_inv_T = torch.transpose(lsh_inv, D - 2, D - 1)
    csh = torch.matmul(lsh_inv, torch.matmul(ash, lsh_inv_T))

    es, ysh = torch.linalg.eigh(csh, UPLO="U")

    dsh = torch.zeros(a.shape[0:(D - 2)] + (2 * C, 2 * C), dtype=a.dtype, device=a.device)
    dsh[..., range(0, 2 * C), range(0, 2 * C)] = es
    vsh = torch.matmul(lsh_inv_T, ysh)
    return ginv(vsh), ginv(dsh)


def svdl(a):
    """Left singular vectors and singular values of a complex matrix, both as (*, C, C, 2)."""
    D = a.dim()
    P = a.shape[D - 1]
    C = int(round(((1 + 8 * P) ** 0.5 - 1) / 2))
    ash = f(a)
    ash_mm_ash_T = torch.matmul(ash, torch.transpose(ash, -2, -1))

    es, ush = torch.linalg.eigh(ash_mm_ash_T, UPLO="U")

    dsh = torch.zeros(ush.shape, dtype=es.dtype, device=es.device)
    dsh[..., range(0, 2 * C), range(0, 2 * C)] = torch.sqrt(es)
    return ginv(ush), ginv(dsh)
