import argparse

import torch
from torch import nn

from schedules import get_sigmas_karras, get_sigmas_vp


class Denoiser(nn.Module):
    """Tiny stand-in for a trained denoiser D(x, sigma)."""

    def __init__(self, channels=3):
        super().__init__()
        self.net = nn.Sequential(nn.Conv2d(channels + 1, 64, 3, padding=1), nn.SiLU(), nn.Conv2d(64, channels, 3, padding=1))

    def forward(self, x, sigma):
        c = sigma.view(-1, 1, 1, 1).expand(x.shape[0], 1, *x.shape[2:])
        return self.net(torch.cat([x, c.log()], dim=1))


@torch.no_grad()
def sample_euler(model, x, sigmas):
    s_in = x.new_ones([x.shape[0]])
    for i in range(len(sigmas) - 1):
        denoised = model(x, sigmas[i] * s_in)
        d = (x - denoised) / sigmas[i]
        x = x + d * (sigmas[i + 1] - sigmas[i])
    return x


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--schedule", choices=["karras", "vp"], default="vp")
    parser.add_argument("--steps", type=int, default=50)
    args = parser.parse_args()
    device = "cuda" if torch.cuda.is_available() else "cpu"
    model = Denoiser().to(device).eval()
    if args.schedule == "vp":
        sigmas = get_sigmas_vp(args.steps, device=device)
    else:
        sigmas = get_sigmas_karras(args.steps, 0.002, 80.0, device=device)
    x = torch.randn(4, 3, 32, 32, device=device) * sigmas[0]
    images = sample_euler(model, x, sigmas)
    print(images.shape, sigmas[-2].item())


if __name__ == "__main__":
    main()
