import torch
import torch.nn as nn


class TinyDRUNet(nn.Module):
    """Small noise-level-conditioned residual denoiser."""

    def __init__(self, channels=3, width=32):
        super().__init__()
        self.head = nn.Conv2d(channels + 1, width, 3, padding=1)
        self.body = nn.Sequential(
            nn.ReLU(), nn.Conv2d(width, width, 3, padding=1),
            nn.ReLU(), nn.Conv2d(width, width, 3, padding=1),
        )
        self.tail = nn.Conv2d(width, channels, 3, padding=1)

    def forward(self, x, sigma):
        noise_map = torch.full_like(x[:, :1], float(sigma))
        h = self.head(torch.cat([x, noise_map], dim=1))
        return x - self.tail(self.body(h) + h)


class StudentGrad(nn.Module):
    def __init__(self, denoiser):
        super().__init__()
        self.model = denoiser

    def forward(self, x, sigma):
        return self.model(x, sigma)


class GSPnP(nn.Module):
    """Gradient-step denoiser D(x) = x - grad g(x), with g(x) = alpha/2 ||x - N(x)||^2."""

    def __init__(self, denoiser, alpha=1.0, detach=True):
        super().__init__()
        self.student_grad = StudentGrad(denoiser)
        self.alpha = alpha
        self.detach = detach

    def potential(self, x, sigma):
        n = self.student_grad(x, sigma)
        return 0.5 * self.alpha * torch.norm((x - n).view(x.shape[0], -1), p=2, dim=-1) ** 2  # expect: TCK903

    def potential_grad(self, x, sigma):
        with torch.enable_grad():
            x = x.to(torch.float32).requires_grad_()
            n = self.student_grad(x, sigma)
            jn = torch.autograd.grad(n, x, grad_outputs=x - n, create_graph=not self.detach)[0]
        if self.detach:
            x = x.detach()
            jn = jn.detach()
        return self.alpha * (x - n - jn)

    def forward(self, x, sigma):
        return x - self.potential_grad(x, sigma)
