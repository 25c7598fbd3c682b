from typing import Tuple

import torch


def _pair_square_euclidean(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """(B, N, C) x (B, M, C) -> (B, N, M) squared distances."""
    a_sq = a.pow(2).sum(-1, keepdim=True)
    b_sq = b.pow(2).sum(-1, keepdim=True).transpose(1, 2)
    return (a_sq + b_sq - 2 * a @ b.transpose(1, 2)).clamp(min=0)


def _kernel_distance(squared: torch.Tensor, eps: float = 1e-8) -> torch.Tensor:
    """TPS kernel r^2 log r, written with r^2 as 0.5 r^2 log(r^2)."""
    return 0.5 * squared * squared.add(eps).log()


def get_tps_transform(points_src: torch.Tensor, points_dst: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
    """Kernel weights (B, N, 2) and affine weights (B, 3, 2) of the spline mapping src onto dst."""
    if points_src.dim() != 3 or points_dst.dim() != 3:
        raise ValueError("expected B x N x 2 point sets")
    device, dtype = points_src.device, points_src.dtype
    batch_size, num_points = points_src.shape[:2]

    # [K   P] [w]   [dst]
    # [P^T 0] [a] = [ 0 ]
    k_matrix = _kernel_distance(_pair_square_euclidean(points_src, points_src))
    zeros = torch.zeros(batch_size, 3, 3, device=device, dtype=dtype)
    ones = torch.ones(batch_size, num_points, 1, device=device, dtype=dtype)
    rhs = torch.cat((points_dst, zeros[:, :, :2]), 1)
    p_matrix = torch.cat((ones, points_src), -1)
    p_matrix_t = torch.cat((p_matrix, zeros), 1).transpose(1, 2)
    l_matrix = torch.cat((torch.cat((k_matrix, p_matrix), -1), p_matrix_t), 1)

    weights = torch.linalg.solve(l_matrix, rhs)
    return weights[:, :-3], weights[:, -3:]


def warp_points_tps(points: torch.Tensor, centers: torch.Tensor, kernel_weights: torch.Tensor,
                    affine_weights: torch.Tensor) -> torch.Tensor:
    """Apply the spline defined by `centers` and the weights to `points` (B, N, 2)."""
    k = _kernel_distance(_pair_square_euclidean(points, centers))
    affine = affine_weights[:, :1] + points @ affine_weights[:, 1:]
    return affine + k @ kernel_weights
