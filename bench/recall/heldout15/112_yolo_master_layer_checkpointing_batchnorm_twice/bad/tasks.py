import torch
import torch.nn as nn
import torch.utils.checkpoint


def autopad(k, p=None):
    return k // 2 if p is None else p


class Conv(nn.Module):
    """Convolution, batch normalisation and SiLU."""

    def __init__(self, c1, c2, k=1, s=1, p=None):
        super().__init__()
        self.conv = nn.Conv2d(c1, c2, k, s, autopad(k, p), bias=False)
        self.bn = nn.BatchNorm2d(c2)
        self.act = nn.SiLU()

    def forward(self, x):
        return self.act(self.bn(self.conv(x)))


class AAttn(nn.Module):
    """Area attention over flattened feature maps (LayerNorm only)."""

    def __init__(self, c, heads=4):
        super().__init__()
        self.norm = nn.LayerNorm(c)
        self.attn = nn.MultiheadAttention(c, heads, batch_first=True)

    def forward(self, x):
        b, c, h, w = x.shape
        t = x.flatten(2).transpose(1, 2)
        t = t + self.attn(self.norm(t), self.norm(t), self.norm(t), need_weights=False)[0]
        return t.transpose(1, 2).reshape(b, c, h, w)


class DetectionModel(nn.Module):
    def __init__(self, ch=3, width=32, nc=80, use_gradient_checkpointing=False):
        super().__init__()
        self.use_gradient_checkpointing = use_gradient_checkpointing
        self.model = nn.ModuleList(
            [
                Conv(ch, width, 3, 2),
                Conv(width, 2 * width, 3, 2),
                Conv(2 * width, 2 * width, 3, 1),
                AAttn(2 * width),
                Conv(2 * width, 4 * width, 3, 2),
            ]
        )
        self.head = nn.Conv2d(4 * width, nc + 4, 1)

    def _apply_checkpointing(self, module, inputs):
        if not inputs.requires_grad:
            return module(inputs)
        return torch.utils.checkpoint.checkpoint(module, inputs, use_reentrant=False)  # expect: TCK119

    def forward(self, x):
        use_gc = self.use_gradient_checkpointing and self.training
        for m in self.model:
            x = self._apply_checkpointing(m, x) if use_gc else m(x)
        return self.head(x)
