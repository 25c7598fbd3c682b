import torch
from torch import nn

from ensemble_utils import generate_bred_vector


class ToyWeatherModel(nn.Module):
    """Stands in for a trained global forecast model: one 6-hour step per call."""

    def __init__(self, channels=4):
        super().__init__()
        self.step = nn.Conv2d(channels, channels, 3, padding=1)

    def forward(self, x):
        # x: [ENSEMBLE, TIME, CHANNEL, LAT, LON]
        e, t, c, h, w = x.shape
        out = x.reshape(e * t, c, h, w)
        out = out + 0.1 * torch.tanh(self.step(out))
        return out.reshape(e, t, c, h, w)


@torch.no_grad()
def main():
    model = ToyWeatherModel().eval()
    initial = torch.randn(8, 1, 4, 32, 64)
    perturbation = generate_bred_vector(initial, model, noise_amplitude=0.05, integration_steps=10)
    ensemble = initial + perturbation
    state = ensemble
    for _ in range(4):
        state = model(state)
    print("ensemble spread", state.std(dim=0).mean().item())


if __name__ == "__main__":
    main()
