import torch
import torch.nn as nn

import sampling

SCHEDULERS = {
    "karras": lambda n, lo, hi: sampling.get_sigmas_karras(n, lo, hi),
    "exponential": lambda n, lo, hi: sampling.get_sigmas_exponential(n, lo, hi),
    "vp": lambda n, lo, hi: sampling.get_sigmas_vp(n),
}


class ToyDenoiser(nn.Module):
    def __init__(self, channels=4):
        super().__init__()
        self.net = nn.Conv2d(channels + 1, channels, 3, padding=1)

    def forward(self, x, sigma):
        s = sigma.view(-1, 1, 1, 1).expand(x.shape[0], 1, x.shape[2], x.shape[3])
        return x - self.net(torch.cat([x, s], dim=1))


def calculate_sigmas(scheduler_name, steps, sigma_min=0.03, sigma_max=14.6):
    return SCHEDULERS[scheduler_name](steps, sigma_min, sigma_max)


def main():
    model = ToyDenoiser().eval()
    for name in SCHEDULERS:
        sigmas = calculate_sigmas(name, 20)
        x = torch.randn(1, 4, 32, 32) * sigmas[0]
        out = sampling.sample_euler(model, x, sigmas)
        print(name, sigmas[-2].item(), out.std().item())


if __name__ == "__main__":
    main()
