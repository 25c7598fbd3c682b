import torch
import torch.nn.functional as F
from torch import nn


class Net(nn.Module):
    def __init__(self, n_in, n_hidden, n_out, p=0.5):
        super().__init__()
        self.fc1 = nn.Linear(n_in, n_hidden)
        self.fc2 = nn.Linear(n_hidden, n_out)
        self.p = p

    def forward(self, x):
        x = F.relu(self.fc1(x))
        x = F.dropout(x, p=self.p)  # expect: TCK604
        return self.fc2(x)


net = Net(10, 32, 2)
x = torch.randn(4, 10)
net.eval()
print(net(x))
print(net(x))
