import numpy as np
import torch
from torch import nn


class ConvBlock(nn.Sequential):
    def __init__(self, channels, instance_norm=False):
        layers = []
        for c_in, c_out in zip(channels[:-2], channels[1:-1]):
            layers.append(nn.Conv2d(c_in, c_out, 3, padding=1))
            if instance_norm:
                layers.append(nn.InstanceNorm2d(c_out, affine=True))
            layers.append(nn.PReLU())
        layers.append(nn.Conv2d(channels[-2], channels[-1], 3, padding=1))
        super().__init__(*layers)


class ProjectionOperator(nn.Module):
    """Dense stand-in for a CT projector: sinogram = image @ matrix."""

    def __init__(self, n_pixels, n_bins):
        super().__init__()
        self.register_buffer("matrix", torch.randn(n_pixels, n_bins) / n_pixels ** 0.5)

    def forward(self, image):
        return image @ self.matrix

    def adjoint(self, sino):
        return sino @ self.matrix.T

    def norm(self, iters=20):
        x = torch.randn(1, self.matrix.shape[0])
        for _ in range(iters):
            x = self.adjoint(self.forward(x))
            x = x / x.norm()
        return self.forward(x).norm().item()


class LPD(nn.Module):
    """Learned primal-dual reconstruction (Adler & Oektem)."""

    def __init__(self, n_pixels=128, n_bins=96, n_iters=10, learned_step=False, step_size=None):
        super().__init__()
        self.n_iters = n_iters
        self.op = ProjectionOperator(n_pixels, n_bins)
        self.primal = nn.ModuleList(ConvBlock([6, 32, 32, 5]) for _ in range(n_iters))
        self.dual = nn.ModuleList(ConvBlock([7, 32, 32, 5]) for _ in range(n_iters))
        if step_size is None:
            step_size = 1.0 / self.op.norm() ** 2
        if learned_step:
            self.lambda_dual = nn.ParameterList(
                nn.Parameter(torch.ones(1) * 10 ** np.log10(step_size)) for _ in range(n_iters)
            )
            self.lambda_primal = nn.ParameterList(
                nn.Parameter(torch.ones(1) * 10 ** np.log10(step_size)) for _ in range(n_iters)
            )
        else:
            self.lambda_dual = torch.ones(n_iters) * step_size  # expect: TCK606
            self.lambda_primal = torch.ones(n_iters) * step_size  # expect: TCK606

    def forward(self, sino):
        # sino: (B, 1, H, n_bins)
        b, _, h, _ = sino.shape
        dual = sino.new_zeros(b, 5, h, sino.shape[-1])
        primal = sino.new_zeros(b, 5, h, self.op.matrix.shape[0])
        for i in range(self.n_iters):
            f_sino = self.op(primal[:, :1])
            dual = dual + self.dual[i](torch.cat([dual, f_sino, sino], dim=1))
            update = self.lambda_dual[i] * self.op.adjoint(dual[:, :1])
            primal = primal + self.primal[i](torch.cat([primal, update], dim=1))
        return primal[:, :1]
