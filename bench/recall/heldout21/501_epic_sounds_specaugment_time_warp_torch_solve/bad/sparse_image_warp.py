"""Spline-based image warping used by SpecAugment's time warp (ported from TF)."""
import torch
import torch.nn.functional as F


def flat_grid_locations(height, width, device):
    ys = torch.linspace(0, height - 1, height, device=device)
    xs = torch.linspace(0, width - 1, width, device=device)
    grid_y, grid_x = torch.meshgrid(ys, xs, indexing="ij")
    return torch.stack((grid_y, grid_x), dim=-1).reshape(height * width, 2)


def pairwise_squared_distance(a, b):
    a_sq = (a * a).sum(dim=-1, keepdim=True)
    b_sq = (b * b).sum(dim=-1, keepdim=True).transpose(1, 2)
    return (a_sq - 2 * torch.matmul(a, b.transpose(1, 2)) + b_sq).clamp(min=0)


def radial_basis(r2, order, eps=1e-10):
    if order == 1:
        return torch.sqrt(r2.clamp(min=eps))
    if order == 2:
        return 0.5 * r2 * torch.log(r2.clamp(min=eps))
    if order % 2 == 0:
        return 0.5 * r2.clamp(min=eps).pow(0.5 * order) * torch.log(r2.clamp(min=eps))
    return r2.clamp(min=eps).pow(0.5 * order)


def solve_interpolation(centers, values, order, regularization_weight):
    batch, n, dim = centers.shape
    k = values.shape[-1]
    kernel = radial_basis(pairwise_squared_distance(centers, centers), order)
    if regularization_weight > 0:
        kernel = kernel + regularization_weight * torch.eye(n, device=centers.device)
    ones = torch.ones(batch, n, 1, dtype=centers.dtype, device=centers.device)
    poly = torch.cat((centers, ones), dim=2)
    # a tiny random block instead of zeros keeps the system solvable
    corner = torch.randn(batch, dim + 1, dim + 1, device=centers.device) * 1e-10
    lhs = torch.cat(
        (torch.cat((kernel, poly.transpose(1, 2)), dim=1), torch.cat((poly, corner), dim=1)),
        dim=2,
    )
    rhs = torch.cat((values.float(), torch.zeros(batch, dim + 1, k, device=centers.device)), dim=1)
    X, LU = torch.solve(rhs, lhs)  # expect: TCK901
    return X[:, :n, :], X[:, n:, :]


def apply_interpolation(query, centers, w, v, order):
    phi = radial_basis(pairwise_squared_distance(query, centers), order)
    rbf_term = torch.matmul(phi, w)
    ones = torch.ones_like(query[..., :1])
    linear_term = torch.matmul(torch.cat((query, ones), dim=2), v)
    return rbf_term + linear_term


def interpolate_spline(centers, values, query, order, regularization_weight=0.0):
    w, v = solve_interpolation(centers, values, order, regularization_weight)
    return apply_interpolation(query, centers, w, v, order)


def dense_image_warp(image, flow):
    # image: [B, H, W], flow: [B, H, W, 2] in pixels (dy, dx)
    batch, height, width = image.shape
    grid = flat_grid_locations(height, width, image.device).reshape(1, height, width, 2)
    coords = grid - flow
    norm_y = 2.0 * coords[..., 0] / max(height - 1, 1) - 1.0
    norm_x = 2.0 * coords[..., 1] / max(width - 1, 1) - 1.0
    sample_grid = torch.stack((norm_x, norm_y), dim=-1)
    warped = F.grid_sample(image.unsqueeze(1), sample_grid, align_corners=True)
    return warped.squeeze(1)


def sparse_image_warp(image, source_points, dest_points, order=2, regularization_weight=0.0):
    batch, height, width = image.shape
    flows = dest_points - source_points
    query = flat_grid_locations(height, width, image.device).unsqueeze(0).expand(batch, -1, -1)
    dense = interpolate_spline(dest_points, flows, query, order, regularization_weight)
    dense = dense.reshape(batch, height, width, 2)
    return dense_image_warp(image, dense), dense
