import torch
import torch.nn as nn


class MLP(nn.Module):
    def __init__(self, in_dim, hidden_dims, out_dim):
        super().__init__()
        self.hidden = nn.ModuleList()
        prev = in_dim
        for h in hidden_dims:
            self.hidden.append(nn.Linear(prev, h))
            prev = h
        self.out = nn.Linear(prev, out_dim)

    def forward(self, x):
        for layer in self.hidden:
            x = torch.relu(layer(x))
        return self.out(x)


model = MLP(10, [64, 32], 2)
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
print(len(list(model.parameters())))
