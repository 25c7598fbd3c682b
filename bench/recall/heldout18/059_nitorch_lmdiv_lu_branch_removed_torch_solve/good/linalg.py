import torch

if tuple(int(v) for v in torch.__version__.split("+")[0].split(".")[:2]) >= (1, 8):

    def _solve_lu(a, b):
        return torch.linalg.solve(a, b)

else:

    def _solve_lu(a, b):
        return torch.solve(b, a)[0]


def lmdiv(a, b, method="lu", rcond=1e-15):
    """Left matrix division: solve a @ x = b for x (batched)."""
    if a.shape[-1] != a.shape[-2]:
        method = "pinv"
    if method.lower().startswith("lu"):
        return _solve_lu(a, b)
    elif method.lower().startswith("chol"):
        u = torch.linalg.cholesky(a)
        return torch.cholesky_solve(b, u)
    elif method.lower().startswith("pinv"):
        return torch.linalg.pinv(a, rtol=rcond) @ b
    raise ValueError(f"Unknown method {method}")


def rmdiv(a, b, method="lu", rcond=1e-15):
    """Right matrix division: solve x @ b = a for x."""
    return lmdiv(b.transpose(-1, -2), a.transpose(-1, -2), method, rcond).transpose(-1, -2)
