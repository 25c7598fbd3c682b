import torch


def lmdiv(a, b, method="lu", rcond=1e-15):
    """Left matrix division: solve a @ x = b for x (batched)."""
    if a.shape[-1] != a.shape[-2]:
        method = "pinv"
    if method.lower().startswith("lu"):
        return torch.solve(b, a)[0]  # expect: TCK901
    elif method.lower().startswith("chol"):
        u = torch.linalg.cholesky(a)
        return torch.cholesky_solve(b, u)
    elif method.lower().startswith("pinv"):
        return torch.linalg.pinv(a, rtol=rcond) @ b
    raise ValueError(f"Unknown method {method}")


def rmdiv(a, b, method="lu", rcond=1e-15):
    """Right matrix division: solve x @ b = a for x."""
    return lmdiv(b.transpose(-1, -2), a.transpose(-1, -2), method, rcond).transpose(-1, -2)
