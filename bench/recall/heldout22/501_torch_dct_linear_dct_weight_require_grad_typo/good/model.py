import torch
import torch.nn as nn
import torch.nn.functional as F

from _dct import LinearDCT, apply_linear_2d


class DCTDenoiser(nn.Module):
    """Works on 2-D DCT coefficients of 32x32 patches: transform, mask, transform back."""

    def __init__(self, size=32, hidden=64):
        super().__init__()
        self.dct = LinearDCT(size, "dct", norm="ortho")
        self.idct = LinearDCT(size, "idct", norm="ortho")
        self.gate = nn.Sequential(
            nn.Conv2d(1, hidden, 3, padding=1), nn.ReLU(),
            nn.Conv2d(hidden, 1, 3, padding=1),
        )

    def forward(self, x):
        coeffs = apply_linear_2d(x, self.dct)
        coeffs = coeffs * torch.sigmoid(self.gate(coeffs))
        return apply_linear_2d(coeffs, self.idct)


def train(steps=200, device="cpu"):
    model = DCTDenoiser().to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    for step in range(steps):
        clean = torch.rand(16, 1, 32, 32, device=device)
        noisy = clean + 0.1 * torch.randn_like(clean)
        optimizer.zero_grad()
        loss = F.mse_loss(model(noisy), clean)
        loss.backward()
        optimizer.step()
        if step % 50 == 0:
            print(step, loss.item())
    return model


if __name__ == "__main__":
    train()
