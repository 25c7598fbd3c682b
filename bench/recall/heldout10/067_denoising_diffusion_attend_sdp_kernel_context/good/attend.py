from collections import namedtuple

import torch
import torch.nn.functional as F
from torch import einsum, nn
from torch.nn.attention import SDPBackend, sdpa_kernel

AttentionConfig = namedtuple("AttentionConfig", ["enable_flash", "enable_math", "enable_mem_efficient"])


def config_to_backends(config):
    backends = []
    if config.enable_flash:
        backends.append(SDPBackend.FLASH_ATTENTION)
    if config.enable_math:
        backends.append(SDPBackend.MATH)
    if config.enable_mem_efficient:
        backends.append(SDPBackend.EFFICIENT_ATTENTION)
    return backends


class Attend(nn.Module):
    def __init__(self, dropout=0.0, flash=False, scale=None):
        super().__init__()
        self.dropout = dropout
        self.scale = scale
        self.attn_dropout = nn.Dropout(dropout)
        self.flash = flash

        self.cpu_config = AttentionConfig(True, True, True)
        self.cuda_config = None
        if not torch.cuda.is_available() or not flash:
            return
        props = torch.cuda.get_device_properties(torch.device("cuda"))
        if props.major == 8 and props.minor == 0:
            self.cuda_config = AttentionConfig(True, False, False)
        else:
            self.cuda_config = AttentionConfig(False, True, True)

    def flash_attn(self, q, k, v):
        is_cuda = q.is_cuda
        if self.scale is not None:
            q = q * (self.scale / q.shape[-1] ** -0.5)
        q, k, v = map(lambda t: t.contiguous(), (q, k, v))
        config = self.cuda_config if is_cuda else self.cpu_config
        with sdpa_kernel(config_to_backends(config)):
            out = F.scaled_dot_product_attention(q, k, v, dropout_p=self.dropout if self.training else 0.0)
        return out

    def forward(self, q, k, v):
        if self.flash:
            return self.flash_attn(q, k, v)
        scale = self.scale if self.scale is not None else q.shape[-1] ** -0.5
        sim = einsum("b h i d, b h j d -> b h i j", q, k) * scale
        attn = self.attn_dropout(sim.softmax(dim=-1))
        return einsum("b h i j, b h j d -> b h i d", attn, v)
