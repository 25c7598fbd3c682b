import torch
import torch.nn as nn
import torch.nn.functional as F

from attend import Attend


class Attention(nn.Module):
    def __init__(self, dim, heads=4, dim_head=32, flash=False):
        super().__init__()
        self.heads = heads
        hidden = dim_head * heads
        self.norm = nn.GroupNorm(1, dim)
        self.attend = Attend(flash=flash)
        self.to_qkv = nn.Conv2d(dim, hidden * 3, 1, bias=False)
        self.to_out = nn.Conv2d(hidden, dim, 1)

    def forward(self, x):
        b, c, h, w = x.shape
        qkv = self.to_qkv(self.norm(x)).chunk(3, dim=1)
        q, k, v = (t.reshape(b, self.heads, -1, h * w).transpose(-1, -2) for t in qkv)
        out = self.attend(q, k, v)
        out = out.transpose(-1, -2).reshape(b, -1, h, w)
        return self.to_out(out) + x


def main():
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = nn.Sequential(nn.Conv2d(3, 64, 3, padding=1), Attention(64, flash=True), nn.Conv2d(64, 3, 3, padding=1)).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=8e-5)
    for step in range(20):
        x0 = torch.randn(8, 3, 32, 32, device=device)
        noise = torch.randn_like(x0)
        t = torch.rand(8, 1, 1, 1, device=device)
        xt = (1 - t).sqrt() * x0 + t.sqrt() * noise
        loss = F.mse_loss(model(xt), noise)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        print(step, loss.item())


if __name__ == "__main__":
    main()
