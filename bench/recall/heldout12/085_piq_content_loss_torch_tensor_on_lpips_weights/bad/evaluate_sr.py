import torch
import torch.nn as nn

from piq.perceptual import LPIPS


class SRNet(nn.Module):
    def __init__(self, scale=2, channels=64):
        super().__init__()
        self.body = nn.Sequential(
            nn.Conv2d(3, channels, 3, padding=1), nn.ReLU(inplace=True),
            nn.Conv2d(channels, channels, 3, padding=1), nn.ReLU(inplace=True),
            nn.Conv2d(channels, 3 * scale * scale, 3, padding=1), nn.PixelShuffle(scale),
        )

    def forward(self, x):
        return self.body(x).clamp(0.0, 1.0)


def main():
    device = "cuda" if torch.cuda.is_available() else "cpu"
    model = SRNet().to(device)
    model.load_state_dict(torch.load("srnet.pt", map_location=device, weights_only=True))
    model.eval()
    lpips = LPIPS().to(device)
    scores = []
    with torch.no_grad():
        for _ in range(10):
            low = torch.rand(4, 3, 64, 64, device=device)
            high = torch.rand(4, 3, 128, 128, device=device)
            scores.append(lpips(model(low), high).item())
    print(f"LPIPS: {sum(scores) / len(scores):.4f}")


if __name__ == "__main__":
    main()
