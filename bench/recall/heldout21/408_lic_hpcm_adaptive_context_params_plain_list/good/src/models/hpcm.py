import torch
import torch.nn as nn

from .base import BB as basemodel


def conv1x1(c_in, c_out):
    return nn.Conv2d(c_in, c_out, 1)


class SpatialPrior(nn.Module):
    def __init__(self, M):
        super().__init__()
        self.net = nn.Sequential(nn.Conv2d(3 * M, 3 * M, 3, padding=1), nn.GELU(), nn.Conv2d(3 * M, 2 * M, 1))

    def forward(self, x, adaptive_scale):
        return self.net(x * adaptive_scale)


class HPCM(basemodel):
    """Hierarchical progressive context model: two coding passes, each with its own adaptive context scale."""

    def __init__(self, M=320, N=256, n_steps=10):
        super().__init__(N)
        self.g_a = nn.Sequential(nn.Conv2d(3, M, 5, 2, 2), nn.GELU(), nn.Conv2d(M, M, 5, 2, 2))
        self.g_s = nn.Sequential(nn.ConvTranspose2d(M, M, 4, 2, 1), nn.GELU(), nn.ConvTranspose2d(M, 3, 4, 2, 1))
        self.h_a = nn.Sequential(nn.Conv2d(M, N, 3, 2, 1), nn.GELU(), nn.Conv2d(N, N, 3, 2, 1))
        self.h_s = nn.Sequential(nn.ConvTranspose2d(N, M, 4, 2, 1), nn.GELU(), nn.ConvTranspose2d(M, 2 * M, 4, 2, 1))

        self.adaptors = nn.ModuleList(conv1x1(3 * M, 3 * M) for _ in range(n_steps))
        self.spatial_prior = SpatialPrior(M)
        self.adaptive_params_list = nn.ParameterList([
            torch.nn.Parameter(torch.ones((1, M * 3, 1, 1), device="cuda"), requires_grad=True) for _ in range(n_steps)
        ])

    def forward(self, x, training=None):
        if training is None:
            training = self.training
        y = self.g_a(x)
        z = self.h_a(y)
        if training:
            z_hat = self.ste_round(z - self.means_hyper) + self.means_hyper
            z_likelihoods = self.entropy_estimation(self.add_noise(z - self.means_hyper), self.scales_hyper)
        else:
            z_res_hat = torch.round(z - self.means_hyper)
            z_hat = z_res_hat + self.means_hyper
            z_likelihoods = self.entropy_estimation(z_res_hat, self.scales_hyper)

        params = self.h_s(z_hat)
        y_hat, scales, means = self.progressive_context(y, params)
        y_likelihoods = self.entropy_estimation(
            self.add_noise(y - means) if training else torch.round(y - means), scales
        )
        return {"x_hat": self.g_s(y_hat), "likelihoods": {"y": y_likelihoods, "z": z_likelihoods}}

    def progressive_context(self, y, params):
        B, C, H, W = y.shape
        anchor, non_anchor = self.checkerboard(B, C, H, W, y.dtype, y.device)
        scales, means = params.chunk(2, 1)
        y_hat = (self.ste_round(y - means) + means) * anchor
        context = params
        for i, adaptor in enumerate(self.adaptors):
            ctx = self.spatial_prior(adaptor(torch.cat((context, y_hat), dim=1)), self.adaptive_params_list[i])
            scales_i, means_i = ctx.chunk(2, 1)
            scales = scales * anchor + scales_i * non_anchor
            means = means * anchor + means_i * non_anchor
            context = ctx
        y_hat = y_hat + (self.ste_round(y - means) + means) * non_anchor
        return y_hat, scales, means
