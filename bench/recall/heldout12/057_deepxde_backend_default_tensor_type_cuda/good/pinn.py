import numpy as np
import torch
from torch import nn

from backend import to_tensor


class FNN(nn.Module):
    def __init__(self, layer_sizes):
        super().__init__()
        self.linears = nn.ModuleList(nn.Linear(a, b) for a, b in zip(layer_sizes[:-1], layer_sizes[1:]))

    def forward(self, x):
        for linear in self.linears[:-1]:
            x = torch.tanh(linear(x))
        return self.linears[-1](x)


def pde_residual(net, x):
    x = x.requires_grad_(True)
    u = net(x)
    du = torch.autograd.grad(u.sum(), x, create_graph=True)[0]
    d2u = torch.autograd.grad(du.sum(), x, create_graph=True)[0]
    return d2u + torch.pi ** 2 * torch.sin(torch.pi * x)


def main():
    net = FNN([1, 32, 32, 1])
    optimizer = torch.optim.Adam(net.parameters(), lr=1e-3)
    x_col = to_tensor(np.linspace(-1, 1, 128)[:, None])
    x_bc = to_tensor(np.array([[-1.0], [1.0]]))
    for step in range(2000):
        optimizer.zero_grad()
        loss = pde_residual(net, x_col).pow(2).mean() + net(x_bc).pow(2).mean()
        loss.backward()
        optimizer.step()
        if step % 500 == 0:
            print(step, loss.item())


if __name__ == "__main__":
    main()
