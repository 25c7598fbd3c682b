import torch
import torch.nn as nn

from block_waveglow import AffineCoupling, Invertible1x1ConvWaveGlow


class WaveGlowFlows(nn.Module):
    def __init__(self, feat_dim=8, cond_dim=16, n_flows=4):
        super().__init__()
        self.convs = nn.ModuleList([Invertible1x1ConvWaveGlow(feat_dim, flag_detjac=True) for _ in range(n_flows)])
        self.couplings = nn.ModuleList([AffineCoupling(feat_dim, cond_dim) for _ in range(n_flows)])

    def forward(self, y, cond):
        log_det = 0
        for conv, coupling in zip(self.convs, self.couplings):
            y, ld_w = conv(y, factor=1)
            y, ld_s = coupling(y, cond)
            log_det = log_det + ld_w + ld_s
        return y, log_det


def main():
    model = WaveGlowFlows()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-4)
    for step in range(20):
        y = torch.randn(4, 100, 8)
        cond = torch.randn(4, 100, 16)
        z, log_det = model(y, cond)
        nll = 0.5 * (z ** 2).sum(dim=(1, 2)) - log_det
        loss = nll.mean() / (100 * 8)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        print(step, loss.item())


if __name__ == "__main__":
    main()
