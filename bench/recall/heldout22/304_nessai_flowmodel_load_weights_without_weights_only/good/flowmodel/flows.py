import torch
import torch.nn as nn


class CouplingFlow(nn.Module):
    """Small affine-coupling flow; stands in for the configured normalising flow."""

    def __init__(self, n_inputs, n_blocks=4, n_neurons=32):
        super().__init__()
        self.n_inputs = n_inputs
        half = n_inputs // 2
        self.nets = nn.ModuleList(
            nn.Sequential(nn.Linear(half, n_neurons), nn.ReLU(), nn.Linear(n_neurons, 2 * (n_inputs - half)))
            for _ in range(n_blocks)
        )
        self.device = torch.device("cpu")

    def forward(self, x):
        log_det = torch.zeros(x.shape[0], device=x.device)
        half = self.n_inputs // 2
        for i, net in enumerate(self.nets):
            x = x.flip(1) if i % 2 else x
            a, b = x[:, :half], x[:, half:]
            scale, shift = net(a).chunk(2, dim=1)
            scale = torch.tanh(scale)
            x = torch.cat([a, b * scale.exp() + shift], dim=1)
            log_det = log_det + scale.sum(1)
        return x, log_det

    def log_prob(self, x):
        z, log_det = self(x)
        return -0.5 * (z ** 2).sum(1) - 0.5 * self.n_inputs * torch.log(torch.tensor(2 * torch.pi)) + log_det


def configure_model(config):
    return CouplingFlow(config["n_inputs"], config.get("n_blocks", 4), config.get("n_neurons", 32))
