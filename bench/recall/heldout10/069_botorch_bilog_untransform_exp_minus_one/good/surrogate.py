import torch
import torch.nn as nn

from outcome import Bilog


class Surrogate(nn.Module):
    def __init__(self, d_in, outcome_transform=None):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(d_in, 64), nn.Tanh(), nn.Linear(64, 1))
        self.outcome_transform = outcome_transform

    def forward(self, X):
        return self.net(X)

    @torch.no_grad()
    def posterior_mean(self, X):
        mean = self.net(X)
        if self.outcome_transform is not None:
            mean, _ = self.outcome_transform.untransform(mean)
        return mean


def main():
    X = torch.rand(200, 3, dtype=torch.float64)
    Y = (1000 * torch.sin(6 * X).sum(dim=-1, keepdim=True)) ** 3 / 1e6
    tf = Bilog()
    Y_tf, _ = tf(Y)
    model = Surrogate(3, outcome_transform=tf).double()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    for step in range(500):
        optimizer.zero_grad()
        loss = nn.functional.mse_loss(model(X), Y_tf)
        loss.backward()
        optimizer.step()
    print(loss.item(), model.posterior_mean(X[:5]).squeeze(-1), Y[:5].squeeze(-1))


if __name__ == "__main__":
    main()
