import torch
import torch.nn.functional as F

from helpers import _torch_solve_cast


def _finite_differences(volume: torch.Tensor):
    """Gradient (N, 3) and Hessian (N, 3, 3) of a (D, H, W) response at every voxel, by central differences."""
    v = F.pad(volume[None, None], (1, 1, 1, 1, 1, 1), mode="replicate")[0, 0]
    c = v[1:-1, 1:-1, 1:-1]

    def shift(dz, dy, dx):
        d, h, w = c.shape
        return v[1 + dz: 1 + dz + d, 1 + dy: 1 + dy + h, 1 + dx: 1 + dx + w]

    gz = 0.5 * (shift(1, 0, 0) - shift(-1, 0, 0))
    gy = 0.5 * (shift(0, 1, 0) - shift(0, -1, 0))
    gx = 0.5 * (shift(0, 0, 1) - shift(0, 0, -1))
    hzz = shift(1, 0, 0) - 2 * c + shift(-1, 0, 0)
    hyy = shift(0, 1, 0) - 2 * c + shift(0, -1, 0)
    hxx = shift(0, 0, 1) - 2 * c + shift(0, 0, -1)
    hzy = 0.25 * (shift(1, 1, 0) - shift(1, -1, 0) - shift(-1, 1, 0) + shift(-1, -1, 0))
    hzx = 0.25 * (shift(1, 0, 1) - shift(1, 0, -1) - shift(-1, 0, 1) + shift(-1, 0, -1))
    hyx = 0.25 * (shift(0, 1, 1) - shift(0, 1, -1) - shift(0, -1, 1) + shift(0, -1, -1))
    grad = torch.stack([gz, gy, gx], -1).reshape(-1, 3, 1)
    hess = torch.stack([
        torch.stack([hzz, hzy, hzx], -1),
        torch.stack([hzy, hyy, hyx], -1),
        torch.stack([hzx, hyx, hxx], -1),
    ], -2).reshape(-1, 3, 3)
    return grad, hess


def conv_quad_interp3d(volume: torch.Tensor, strict_maxima_bonus: float = 10.0):
    """Refine the local maxima of a (D, H, W) response by fitting a quadratic around each of them."""
    grad, hess = _finite_differences(volume)
    pooled = F.max_pool3d(volume[None, None], 3, stride=1, padding=1)[0, 0]
    nms_mask = (volume == pooled).reshape(-1)

    offsets = torch.zeros_like(grad)
    solved = torch.linalg.solve(hess[nms_mask], grad[nms_mask])
    offsets[nms_mask] = -solved
    offsets = offsets.squeeze(-1)
    bad = (offsets.abs() > 0.7).any(-1)
    offsets[bad] = 0
    refined_value = volume.reshape(-1) + 0.5 * (grad.squeeze(-1) * offsets).sum(-1)
    refined_value = refined_value + strict_maxima_bonus * nms_mask.float()
    return offsets.reshape(*volume.shape, 3), refined_value.reshape(volume.shape)


def refine_half_precision(volume: torch.Tensor):
    """Same refinement for a float16 response, through the dtype-casting helper."""
    grad, hess = _finite_differences(volume)
    solved, _ = _torch_solve_cast(grad, hess + 1e-3 * torch.eye(3, dtype=hess.dtype))
    return -solved.squeeze(-1).reshape(*volume.shape, 3)
