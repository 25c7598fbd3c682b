import torch
import torch.nn as torch_nn


class Invertible1x1ConvWaveGlow(torch_nn.Module):
    def __init__(self, feat_dim, flag_detjac=False):
        super(Invertible1x1ConvWaveGlow, self).__init__()
        with torch.no_grad():
            W = torch.linalg.qr(torch.randn(feat_dim, feat_dim), mode="reduced")[0]
            # make the determinant +1
            if torch.det(W) < 0:
                W[:, 0] = -1 * W[:, 0]
            W = W.transpose(0, 1)
        self.weight = torch_nn.Parameter(W)
        self.flag_detjac = flag_detjac

    def forward(self, y, factor):
        batch_size, length, feat_dim = y.size()
        log_det_W = length / factor * torch.logdet(self.weight)
        z = torch.matmul(y, self.weight)
        if self.flag_detjac:
            return z, log_det_W
        return z

    def reverse(self, x):
        return torch.matmul(x, torch.inverse(self.weight))


class AffineCoupling(torch_nn.Module):
    def __init__(self, in_dim, cond_dim, hidden=64):
        super().__init__()
        self.net = torch_nn.Sequential(
            torch_nn.Linear(in_dim // 2 + cond_dim, hidden),
            torch_nn.Tanh(),
            torch_nn.Linear(hidden, in_dim),
        )
        self.net[-1].weight.data.zero_()
        self.net[-1].bias.data.zero_()

    def forward(self, y, cond):
        y1, y2 = y.chunk(2, -1)
        log_scale, bias = self.net(torch.cat([y1, cond], dim=-1)).chunk(2, -1)
        x2 = (y2 + bias) * torch.exp(log_scale)
        return torch.cat([y1, x2], dim=-1), log_scale.sum(dim=(1, 2))
