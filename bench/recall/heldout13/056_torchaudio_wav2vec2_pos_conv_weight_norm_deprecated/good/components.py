import torch
from torch import Tensor, nn


class ConvolutionalPositionalEmbedding(nn.Module):
    """Relative positional information from a grouped convolution, placed before the Transformer."""

    def __init__(self, embed_dim: int, kernel_size: int, groups: int):
        super().__init__()
        self.embed_dim = embed_dim
        self.kernel_size = kernel_size
        self.conv = nn.Conv1d(
            in_channels=embed_dim,
            out_channels=embed_dim,
            kernel_size=kernel_size,
            padding=kernel_size // 2,
            groups=groups,
        )
        self.conv = nn.utils.parametrizations.weight_norm(self.conv, name="weight", dim=2)
        self.num_remove = 1 if kernel_size % 2 == 0 else 0

    def forward(self, x: Tensor) -> Tensor:
        x = x.transpose(-2, -1)
        x = self.conv(x)
        if self.num_remove > 0:
            x = x[..., : -self.num_remove]
        x = torch.nn.functional.gelu(x)
        return x.transpose(-2, -1)


class Transformer(nn.Module):
    def __init__(self, embed_dim=768, num_layers=12, num_heads=12, pos_conv_kernel=128, pos_conv_groups=16):
        super().__init__()
        self.pos_conv_embed = ConvolutionalPositionalEmbedding(embed_dim, pos_conv_kernel, pos_conv_groups)
        self.layer_norm = nn.LayerNorm(embed_dim)
        layer = nn.TransformerEncoderLayer(embed_dim, num_heads, dim_feedforward=4 * embed_dim, batch_first=True)
        self.layers = nn.TransformerEncoder(layer, num_layers)

    def forward(self, x: Tensor) -> Tensor:
        x = x + self.pos_conv_embed(x)
        return self.layers(self.layer_norm(x))
