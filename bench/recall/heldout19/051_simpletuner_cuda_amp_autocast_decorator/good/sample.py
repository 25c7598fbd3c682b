import torch
from torch import nn

from pipeline import FlowMatchSampler


class TinyTransformer(nn.Module):
    def __init__(self, channels=16, cond_dim=64):
        super().__init__()
        self.proj = nn.Conv2d(channels, channels, 3, padding=1)
        self.cond = nn.Linear(cond_dim, channels)
        self.time = nn.Linear(1, channels)

    def forward(self, x, t, cond):
        h = self.proj(x)
        h = h + self.cond(cond)[:, :, None, None] + self.time(t[:, None])[:, :, None, None]
        return h


def main():
    device = "cuda" if torch.cuda.is_available() else "cpu"
    model = TinyTransformer().to(device).eval()
    sampler = FlowMatchSampler(model)
    latents = torch.randn(2, 16, 32, 32, device=device)
    cond = torch.randn(2, 64, device=device)
    uncond = torch.zeros_like(cond)
    with torch.autocast(device, dtype=torch.bfloat16):
        images = sampler(latents, cond, uncond)
    print(images.shape)


if __name__ == "__main__":
    main()
