import time

import torch
import torch.nn as nn
import torch.nn.functional as F


class ResBlock(nn.Module):
    def __init__(self, channels, emb_dim):
        super().__init__()
        self.norm1 = nn.GroupNorm(32, channels)
        self.conv1 = nn.Conv2d(channels, channels, 3, padding=1)
        self.emb = nn.Linear(emb_dim, channels)
        self.norm2 = nn.GroupNorm(32, channels)
        self.conv2 = nn.Conv2d(channels, channels, 3, padding=1)

    def forward(self, x, emb):
        h = self.conv1(F.silu(self.norm1(x)))
        h = h + self.emb(F.silu(emb))[:, :, None, None]
        h = self.conv2(F.silu(self.norm2(h)))
        return x + h


class TinyUNet(nn.Module):
    def __init__(self, in_channels=4, channels=128, emb_dim=256, depth=4):
        super().__init__()
        self.time_embed = nn.Sequential(nn.Linear(1, emb_dim), nn.SiLU(), nn.Linear(emb_dim, emb_dim))
        self.conv_in = nn.Conv2d(in_channels, channels, 3, padding=1)
        self.blocks = nn.ModuleList(ResBlock(channels, emb_dim) for _ in range(depth))
        self.conv_out = nn.Conv2d(channels, in_channels, 3, padding=1)

    def forward(self, x, t):
        emb = self.time_embed(t[:, None].float())
        h = self.conv_in(x)
        for block in self.blocks:
            h = block(h, emb)
        return self.conv_out(h)


if __name__ == "__main__":
    device = "cuda"
    unet = TinyUNet().to(device)
    unet.train()
    optimizer = torch.optim.AdamW(unet.parameters(), lr=1e-4)
    scaler = torch.amp.GradScaler("cuda", enabled=True)
    for step in range(5):
        x = torch.randn(2, 4, 64, 64, device=device)
        t = torch.randint(0, 1000, (2,), device=device)
        begin = time.perf_counter()
        with torch.amp.autocast("cuda", enabled=True):
            out = unet(x, t)
            loss = F.mse_loss(out, torch.randn_like(out))
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
        optimizer.zero_grad(set_to_none=True)
        print(f"step {step}: {time.perf_counter() - begin:.3f}s")
