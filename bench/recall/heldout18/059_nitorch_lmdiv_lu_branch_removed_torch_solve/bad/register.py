import torch
import torch.nn.functional as F

from linalg import lmdiv


def affine_grid(theta, shape):
    return F.affine_grid(theta[:, :2, :], shape, align_corners=False)


def register(fixed, moving, iterations=50, lam=1e-3):
    """Gauss-Newton affine registration of two 2D images (batch, 1, H, W)."""
    batch = fixed.shape[0]
    params = torch.zeros(batch, 6, requires_grad=True)
    eye = torch.tensor([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])
    for it in range(iterations):
        theta = torch.cat([(eye + params.view(batch, 2, 3)), torch.tensor([[[0.0, 0.0, 1.0]]]).expand(batch, 1, 3)], 1)
        warped = F.grid_sample(moving, affine_grid(theta, fixed.shape), align_corners=False)
        residual = (warped - fixed).flatten(1)
        jac = torch.autograd.functional.jacobian(
            lambda p: F.grid_sample(
                moving,
                affine_grid(torch.cat([(eye + p.view(batch, 2, 3)), theta[:, 2:]], 1), fixed.shape),
                align_corners=False,
            ).flatten(1),
            params.detach(),
        )
        jac = torch.stack([jac[i, :, i] for i in range(batch)])  # (batch, pixels, 6)
        hess = jac.transpose(1, 2) @ jac + lam * torch.eye(6)
        grad = jac.transpose(1, 2) @ residual.unsqueeze(-1)
        with torch.no_grad():
            params -= lmdiv(hess, grad).squeeze(-1)
        print(it, residual.pow(2).mean().item())
    return params.detach()


if __name__ == "__main__":
    fixed = torch.rand(2, 1, 32, 32)
    moving = torch.roll(fixed, shifts=2, dims=-1)
    print(register(fixed, moving, iterations=5))
