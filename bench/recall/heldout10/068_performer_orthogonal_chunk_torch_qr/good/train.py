import torch
import torch.nn as nn
import torch.nn.functional as F

from performer import FastAttention


class PerformerBlock(nn.Module):
    def __init__(self, dim=64, heads=4):
        super().__init__()
        self.heads = heads
        self.to_qkv = nn.Linear(dim, dim * 3, bias=False)
        self.attn = FastAttention(dim // heads)
        self.to_out = nn.Linear(dim, dim)
        self.norm = nn.LayerNorm(dim)

    def forward(self, x):
        b, n, d = x.shape
        q, k, v = self.to_qkv(self.norm(x)).chunk(3, dim=-1)
        q, k, v = (t.reshape(b, n, self.heads, -1).transpose(1, 2) for t in (q, k, v))
        out = self.attn(q, k, v).transpose(1, 2).reshape(b, n, d)
        return x + self.to_out(out)


def main():
    model = nn.Sequential(nn.Embedding(256, 64), PerformerBlock(), nn.Linear(64, 256))
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-4)
    for step in range(200):
        tokens = torch.randint(0, 256, (8, 128))
        logits = model(tokens[:, :-1])
        loss = F.cross_entropy(logits.reshape(-1, 256), tokens[:, 1:].reshape(-1))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if step % 50 == 0:
            model[1].attn.redraw_projection_matrix()
            print(step, loss.item())


if __name__ == "__main__":
    main()
