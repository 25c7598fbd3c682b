import torch
import torch.nn as nn
import torch.nn.utils.parametrize as parametrize

from cayley import CayleyMap, Skew


class OrthogonalRNN(nn.Module):
    def __init__(self, input_size, hidden_size, num_classes):
        super().__init__()
        self.input_proj = nn.Linear(input_size, hidden_size)
        self.recurrent = nn.Linear(hidden_size, hidden_size, bias=False)
        parametrize.register_parametrization(self.recurrent, "weight", Skew())
        parametrize.register_parametrization(self.recurrent, "weight", CayleyMap(hidden_size))
        self.head = nn.Linear(hidden_size, num_classes)

    def forward(self, x):
        h = x.new_zeros(x.size(0), self.recurrent.in_features)
        with parametrize.cached():
            for t in range(x.size(1)):
                h = torch.tanh(self.input_proj(x[:, t]) + self.recurrent(h))
        return self.head(h)


def main():
    model = OrthogonalRNN(input_size=8, hidden_size=32, num_classes=4)
    W = torch.empty(32, 32)
    nn.init.orthogonal_(W)
    if W.det() < 0:
        W[0].neg_()
    model.recurrent.weight = W
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    for step in range(100):
        x = torch.randn(16, 50, 8)
        y = torch.randint(0, 4, (16,))
        optimizer.zero_grad()
        loss = nn.functional.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()
        if step % 20 == 0:
            Q = model.recurrent.weight
            print(step, loss.item(), torch.dist(Q.T @ Q, torch.eye(32)).item())


if __name__ == "__main__":
    main()
