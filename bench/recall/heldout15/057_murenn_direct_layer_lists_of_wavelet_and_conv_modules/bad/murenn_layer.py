import torch
from torch import nn

from wavelets import DTCWT


class MuReNNDirect(nn.Module):
    """Learnable filters applied to each wavelet subband, then downsampled to a common rate.

    Args:
        J: number of levels of the wavelet decomposition.
        Q: number of Conv1D filters at each level.
        T: kernel size of the per-level filters.
        in_channels: number of channels of the input signal.
    """

    def __init__(self, *, J, Q, T, in_channels, padding_mode="symmetric"):
        super().__init__()
        self.Q = Q
        self.C = in_channels
        self.down = []  # expect: TCK601
        self.conv1d = []  # expect: TCK601
        self.dtcwt = DTCWT(J=J, padding_mode=padding_mode)

        for j in range(J):
            down_j = DTCWT(J=J - j, padding_mode=padding_mode, skip_hps=True)
            self.down.append(down_j)

            conv1d_j = nn.Conv1d(
                in_channels=in_channels,
                out_channels=Q * in_channels,
                kernel_size=T,
                bias=False,
                groups=in_channels,
                padding="same",
            )
            nn.init.normal_(conv1d_j.weight)
            self.conv1d.append(conv1d_j)

    def forward(self, x):
        assert self.C == x.shape[1]
        _, bps = self.dtcwt(x)
        ys = []
        for j in range(self.dtcwt.J):
            wx_r = self.conv1d[j](bps[j].real)
            wx_i = self.conv1d[j](bps[j].imag)
            ux = wx_r**2 + wx_i**2
            y_j, _ = self.down[j](ux)
            b, _, n = y_j.shape
            ys.append(y_j.reshape(b, self.C, self.Q, n))
        return torch.stack(ys, dim=3)
