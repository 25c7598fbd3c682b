import torch
from torch import nn

from distributions import LogNormal


class LatencyModel(nn.Module):
    """Predicts a log-normal distribution of request latency from request features."""

    def __init__(self, n_features):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(n_features, 32), nn.Tanh(), nn.Linear(32, 2))

    def forward(self, x):
        loc, raw_scale = self.net(x).unbind(-1)
        # small predicted scales are the common case for a stable service
        scale = nn.functional.softplus(raw_scale) + 1e-4
        return LogNormal(loc, scale)


def main():
    features = torch.randn(1024, 8)
    latency = torch.exp(0.3 * features[:, 0] + 0.01 * torch.randn(1024))
    model = LatencyModel(8)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    for step in range(500):
        dist = model(features)
        loss = -dist.log_prob(latency).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    with torch.no_grad():
        dist = model(features[:4])
        print("predicted mean", dist.mean, "predicted variance", dist.variance)


if __name__ == "__main__":
    main()
