import torch
from torch import nn

from linear import NaiveLinear


class StandardNormalFlow(nn.Module):
    """A stack of invertible linear layers on top of a standard normal base."""

    def __init__(self, features, num_layers=4, using_cache=True):
        super().__init__()
        self.features = features
        self.layers = nn.ModuleList(NaiveLinear(features, using_cache=using_cache) for _ in range(num_layers))

    def log_prob(self, x):
        total = x.new_zeros(x.shape[0])
        for layer in self.layers:
            x, logabsdet = layer(x)
            total = total + logabsdet
        base = -0.5 * (x ** 2).sum(dim=1) - 0.5 * self.features * torch.log(torch.tensor(2 * torch.pi))
        return base + total

    def sample(self, num_samples):
        z = torch.randn(num_samples, self.features)
        for layer in reversed(self.layers):
            z, _ = layer.inverse(z)
        return z


if __name__ == "__main__":
    flow = StandardNormalFlow(5)
    optimizer = torch.optim.Adam(flow.parameters(), lr=1e-2)
    data = torch.randn(512, 5) @ torch.randn(5, 5)
    for step in range(200):
        optimizer.zero_grad()
        loss = -flow.log_prob(data).mean()
        loss.backward()
        optimizer.step()
    flow.eval()
    with torch.no_grad():
        print(flow.sample(4).shape)
    flow.train()
    print(flow.sample(4).shape)
