import numpy as np
import torch
import torch.nn.functional as nn
import torch.optim as optim

from data import next_batch

mb_size = 64
Z_dim = 100
X_dim = 784
h_dim = 128


def xavier_init(size):
    in_dim = size[0]
    xavier_stddev = 1.0 / np.sqrt(in_dim / 2.0)
    return (torch.randn(*size) * xavier_stddev).requires_grad_(True)


Wzh = xavier_init(size=[Z_dim, h_dim])
bzh = torch.zeros(h_dim, requires_grad=True)
Whx = xavier_init(size=[h_dim, X_dim])
bhx = torch.zeros(X_dim, requires_grad=True)


def G(z):
    h = nn.relu(z @ Wzh + bzh.repeat(z.size(0), 1))
    return torch.sigmoid(h @ Whx + bhx.repeat(h.size(0), 1))


Wxh = xavier_init(size=[X_dim, h_dim])
bxh = torch.zeros(h_dim, requires_grad=True)
Why = xavier_init(size=[h_dim, 1])
bhy = torch.zeros(1, requires_grad=True)


def D(X):
    h = nn.relu(X @ Wxh + bxh.repeat(X.size(0), 1))
    return torch.sigmoid(h @ Why + bhy.repeat(h.size(0), 1))


G_params = [Wzh, bzh, Whx, bhx]
D_params = [Wxh, bxh, Why, bhy]
G_solver = optim.Adam(G_params, lr=1e-3)
D_solver = optim.Adam(D_params, lr=1e-3)

for it in range(100000):
    z = torch.randn(mb_size, Z_dim)
    X = torch.from_numpy(next_batch(mb_size))
    D_loss = -torch.mean(torch.log(D(X)) + torch.log(1 - D(G(z))))
    D_loss.backward()
    D_solver.step()
    for p in G_params + D_params:
        p.grad = None
    G_loss = -torch.mean(torch.log(D(G(z))))
    G_loss.backward()
    G_solver.step()
    for p in G_params + D_params:
        p.grad = None
