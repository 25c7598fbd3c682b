import torch.nn as nn

from checkpointing import checkpoint_blocks


class PairformerStack(nn.Module):
    def __init__(self, n_blocks=4, c_z=64, blocks_per_ckpt=1):
        super().__init__()
        self.blocks = nn.ModuleList([nn.Sequential(nn.LayerNorm(c_z), nn.Linear(c_z, c_z), nn.ReLU()) for _ in range(n_blocks)])
        self.blocks_per_ckpt = blocks_per_ckpt

    def forward(self, z):
        ckpt = self.blocks_per_ckpt if self.training else None
        (z,) = checkpoint_blocks(list(self.blocks), (z,), blocks_per_ckpt=ckpt)
        return z
