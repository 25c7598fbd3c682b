import torch
from torch import nn
from torch.distributed.algorithms._checkpoint.checkpoint_wrapper import checkpoint_wrapper


class Attention(nn.Module):
    def __init__(self, dim, num_heads=8, qkv_bias=False, attn_drop=0.0, proj_drop=0.0):
        super().__init__()
        self.num_heads = num_heads
        self.qkv = nn.Linear(dim, dim * 3, bias=qkv_bias)
        self.attn_drop = nn.Dropout(attn_drop)
        self.proj = nn.Linear(dim, dim)
        self.proj_drop = nn.Dropout(proj_drop)

    def forward(self, x):
        b, n, c = x.shape
        q, k, v = self.qkv(x).view(b, n, 3, self.num_heads, c // self.num_heads).permute(2, 0, 3, 1, 4)
        attn = self.attn_drop((q @ k.transpose(-2, -1) * (c // self.num_heads) ** -0.5).softmax(dim=-1))
        x = (attn @ v).transpose(1, 2).reshape(b, n, c)
        return self.proj_drop(self.proj(x))


class Block(nn.Module):
    def __init__(self, dim, num_heads, mlp_ratio=4.0, qkv_bias=False, skip=False):
        super().__init__()
        self.norm1 = nn.LayerNorm(dim)
        self.attn = Attention(dim, num_heads=num_heads, qkv_bias=qkv_bias)
        self.norm2 = nn.LayerNorm(dim)
        hidden = int(dim * mlp_ratio)
        self.mlp = nn.Sequential(nn.Linear(dim, hidden), nn.GELU(), nn.Linear(hidden, dim))
        self.skip_linear = nn.Linear(2 * dim, dim) if skip else None

    def forward(self, x, skip=None):
        if self.skip_linear is not None:
            x = self.skip_linear(torch.cat([x, skip], dim=-1))
        x = x + self.attn(self.norm1(x))
        return x + self.mlp(self.norm2(x))


class UViT(nn.Module):
    def __init__(self, hidden_size=1152, depth=28, num_heads=16):
        super().__init__()
        self.in_blocks = nn.ModuleList(Block(hidden_size, num_heads) for _ in range(depth // 2))
        self.mid_block = Block(hidden_size, num_heads)
        self.out_blocks = nn.ModuleList(Block(hidden_size, num_heads, skip=True) for _ in range(depth // 2))

    def enable_activation_checkpointing(self, mode: str):
        if mode == "full":
            for i in range(len(self.in_blocks)):
                self.in_blocks[i] = checkpoint_wrapper(self.in_blocks[i], preserve_rng_state=False)
            self.mid_block = checkpoint_wrapper(self.mid_block, preserve_rng_state=False)
            for i in range(len(self.out_blocks)):
                self.out_blocks[i] = checkpoint_wrapper(self.out_blocks[i], preserve_rng_state=False)
        else:
            raise ValueError(f"mode {mode} is not supported")

    def forward(self, x):
        skips = []
        for blk in self.in_blocks:
            x = blk(x)
            skips.append(x)
        x = self.mid_block(x)
        for blk in self.out_blocks:
            x = blk(x, skips.pop())
        return x
