import torch


def random_orthogonal(size):
    """A random orthogonal matrix of shape (size, size)."""
    q, _ = torch.linalg.qr(torch.randn(size, size))
    return q


def logabsdet(x):
    """Log of the absolute value of the determinant of a square matrix."""
    _, res = torch.linalg.slogdet(x)
    return res
