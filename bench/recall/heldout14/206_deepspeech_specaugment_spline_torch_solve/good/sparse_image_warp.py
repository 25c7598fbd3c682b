"""Polyharmonic-spline image warp used by SpecAugment's time warping."""
import numpy as np
import torch


def phi(r, order):
    eps = torch.tensor(1e-10)
    if order == 1:
        return torch.sqrt(torch.max(r, eps))
    if order == 2:
        return 0.5 * r * torch.log(torch.max(r, eps))
    r = torch.max(r, eps)
    return 0.5 * torch.pow(r, 0.5 * order) * torch.log(r)


def cross_squared_distance_matrix(x, y):
    x_norm_squared = torch.sum(x * x)
    y_norm_squared = torch.sum(y * y)
    x_y_transpose = torch.matmul(x.squeeze(0), y.squeeze(0).transpose(0, 1))
    return (x_norm_squared - 2 * x_y_transpose + y_norm_squared).float()


def solve_interpolation(train_points, train_values, order):
    b, n, d = train_points.shape
    k = train_values.shape[-1]
    c = train_points
    f = train_values.float()
    matrix_a = phi(cross_squared_distance_matrix(c, c), order).unsqueeze(0)  # [b, n, n]
    ones = torch.ones(1, dtype=train_points.dtype).view([-1, 1, 1])
    matrix_b = torch.cat((c, ones), 2).float()  # [b, n, d + 1]
    left_block = torch.cat((matrix_a, torch.transpose(matrix_b, 2, 1)), 1)
    num_b_cols = matrix_b.shape[2]
    lhs_zeros = torch.randn((b, num_b_cols, num_b_cols)) / 1e10
    right_block = torch.cat((matrix_b, lhs_zeros), 1)
    lhs = torch.cat((left_block, right_block), 2)  # [b, n + d + 1, n + d + 1]
    rhs_zeros = torch.zeros((b, d + 1, k), dtype=train_points.dtype).float()
    rhs = torch.cat((f, rhs_zeros), 1)  # [b, n + d + 1, k]

    # solve the linear system and unpack the spline weights
    X = torch.linalg.solve(lhs, rhs)
    return X[:, :n, :], X[:, n:, :]


def apply_interpolation(query_points, train_points, w, v, order):
    query_points = query_points.unsqueeze(0)
    pairwise = cross_squared_distance_matrix(query_points.float(), train_points.float())
    rbf_term = torch.matmul(phi(pairwise, order), w)
    ones = torch.ones_like(query_points[..., :1])
    linear_term = torch.matmul(torch.cat((query_points, ones), 2).float(), v)
    return rbf_term + linear_term


def sparse_image_warp(img, source_points, dest_points, order=2):
    flows = dest_points - source_points
    batch_size, height, width = img.shape
    ys, xs = np.meshgrid(np.arange(height), np.arange(width), indexing="ij")
    grid = torch.tensor(np.stack((ys, xs), -1).reshape(height * width, 2))
    w, v = solve_interpolation(dest_points, flows, order)
    dense_flows = apply_interpolation(grid, dest_points, w, v, order).reshape(batch_size, height, width, 2)
    query = torch.stack(torch.meshgrid(torch.arange(height), torch.arange(width), indexing="ij"), -1)
    query = (query.float() - dense_flows).round().long()
    query[..., 0].clamp_(0, height - 1)
    query[..., 1].clamp_(0, width - 1)
    warped = img[:, query[0, ..., 0], query[0, ..., 1]]
    return warped, dense_flows
