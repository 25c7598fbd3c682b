import torch
import torch.nn as nn
from torch.autograd import Variable


class ERelu(nn.Module):
    def __init__(self, alpha=1.0):
        super().__init__()
        self.alpha = alpha
        self.constant = Variable(torch.zeros(1), requires_grad=False)  # expect: TCK606, TCK703

    def forward(self, x):
        return torch.max(x, self.constant) + self.alpha * (torch.exp(torch.min(x, self.constant)) - 1)


model = nn.Sequential(nn.Linear(8, 8), ERelu()).cuda()
