import argparse

import torch
import torch.nn as nn

from pipeline import MultiViewPaintPipeline


class TinyUNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(4, 4, 3, padding=1)
        self.cond_proj = nn.Linear(16, 4)

    def forward(self, latents, t, cond):
        return self.conv(latents) + self.cond_proj(cond)[:, :, None, None]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--turbo", action="store_true")
    args = parser.parse_args()
    device = "cuda" if torch.cuda.is_available() else "cpu"
    unet = TinyUNet().to(device).eval()
    pipe = MultiViewPaintPipeline(unet, is_turbo=args.turbo, device=device)
    views = pipe(torch.randn(6, 16, device=device))
    print(views.shape)


if __name__ == "__main__":
    main()
