from einops import rearrange, repeat
from torch import Tensor, nn

from grelu.model.layers import Activation, Dropout, Norm


class ExplaiNNConvBlock(nn.Module):
    """One grouped convolution per independent CNN unit, then norm, activation, dropout and pooling."""

    def __init__(self, in_channels, out_channels, kernel_size, groups, act_func, dropout, dtype=None, device=None):
        super().__init__()
        self.conv = nn.Conv1d(
            in_channels, out_channels, kernel_size=kernel_size, groups=groups, dtype=dtype, device=device
        )
        self.norm = Norm("batch", out_channels, eps=1e-05, momentum=0.1, affine=True)
        self.act = Activation(act_func)
        self.dropout = Dropout(dropout)
        self.pool = nn.MaxPool1d(7, 7)

    def forward(self, x: Tensor) -> Tensor:
        x = self.pool(self.dropout(self.act(self.norm(self.conv(x)))))
        return rearrange(x, "b t l -> b (t l) 1")


class ExplaiNNTrunk(nn.Module):
    """ExplaiNN: `channels` independent shallow CNN units over the one-hot sequence."""

    def __init__(self, in_len: int, channels=300, kernel_size=19, dtype=None, device=None):
        super().__init__()
        self.channels = channels
        self.blocks = nn.ModuleList()
        self.blocks.append(
            ExplaiNNConvBlock(4 * channels, channels, kernel_size, groups=channels, act_func="exp",
                              dropout=0.0, dtype=dtype, device=device)
        )
        self.blocks.append(
            ExplaiNNConvBlock(((in_len - kernel_size + 1) // 7) * channels, 100 * channels, 1, groups=channels,
                              act_func="relu", dropout=0.3, dtype=dtype, device=device)
        )
        self.blocks.append(
            ExplaiNNConvBlock(100 * channels, channels, 1, groups=channels, act_func="relu",
                              dropout=0.0, dtype=dtype, device=device)
        )

    def forward(self, x: Tensor) -> Tensor:
        x = repeat(x, "b t l -> b (r t) l", r=self.channels)
        for block in self.blocks:
            x = block(x)
        return x
