import torch
from torch import nn

from checkpointing import checkpoint_blocks


class PairformerBlock(nn.Module):
    def __init__(self, c_s=384, c_z=128):
        super().__init__()
        self.z_norm = nn.LayerNorm(c_z)
        self.z_mlp = nn.Sequential(nn.Linear(c_z, 4 * c_z), nn.ReLU(), nn.Linear(4 * c_z, c_z))
        self.s_norm = nn.LayerNorm(c_s)
        self.s_attn = nn.MultiheadAttention(c_s, 8, batch_first=True)

    def forward(self, s, z):
        z = z + self.z_mlp(self.z_norm(z))
        h = self.s_norm(s)
        s = s + self.s_attn(h, h, h, need_weights=False)[0]
        return s, z


class PairformerStack(nn.Module):
    def __init__(self, n_blocks=8, blocks_per_ckpt=1):
        super().__init__()
        self.blocks = nn.ModuleList([PairformerBlock() for _ in range(n_blocks)])
        self.blocks_per_ckpt = blocks_per_ckpt

    def forward(self, s, z):
        blocks_per_ckpt = self.blocks_per_ckpt if self.training else None
        s, z = checkpoint_blocks(list(self.blocks), (s, z), blocks_per_ckpt)
        return s, z


def main():
    model = PairformerStack()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-4)
    for _ in range(10):
        s = torch.randn(1, 64, 384, requires_grad=True)
        z = torch.randn(1, 64, 64, 128, requires_grad=True)
        s_out, z_out = model(s, z)
        loss = s_out.pow(2).mean() + z_out.pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


if __name__ == "__main__":
    main()
