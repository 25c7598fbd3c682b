import torch.nn as nn


class RES_MLP(nn.Module):
    def __init__(self, in_dim, out_dim, hidden_list):
        super().__init__()
        layers = []
        last = in_dim
        for hidden in hidden_list:
            layers += [nn.Linear(last, hidden), nn.ReLU()]
            last = hidden
        self.body = nn.Sequential(*layers)
        self.head = nn.Linear(last, out_dim)
        self.skip = nn.Linear(in_dim, out_dim)

    def forward(self, x):
        return self.head(self.body(x)) + self.skip(x)
