import torch
import torch.nn as nn

from ci_sdr import ci_sdr_loss


class ConvEnhancer(nn.Module):
    def __init__(self, channels=32):
        super().__init__()
        self.net = nn.Sequential(
            nn.Conv1d(1, channels, 9, padding=4),
            nn.PReLU(),
            nn.Conv1d(channels, channels, 9, padding=4),
            nn.PReLU(),
            nn.Conv1d(channels, 1, 9, padding=4),
        )

    def forward(self, noisy):
        return noisy + self.net(noisy.unsqueeze(1)).squeeze(1)


def main():
    model = ConvEnhancer()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    for step in range(50):
        clean = torch.randn(4, 8000)
        noisy = clean + 0.3 * torch.randn_like(clean)
        loss = ci_sdr_loss(model(noisy), clean, filter_length=64).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        print(step, loss.item())


if __name__ == "__main__":
    main()
