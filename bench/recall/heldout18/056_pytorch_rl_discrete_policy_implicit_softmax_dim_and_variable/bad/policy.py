import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.autograd import Variable


class DiscretePolicy(nn.Module):
    def __init__(self, state_dim, action_num, hidden_size=(128, 128), activation="tanh"):
        super().__init__()
        self.is_disc_action = True
        self.activation = {"tanh": torch.tanh, "relu": torch.relu, "sigmoid": torch.sigmoid}[activation]
        self.affine_layers = nn.ModuleList()
        last_dim = state_dim
        for nh in hidden_size:
            self.affine_layers.append(nn.Linear(last_dim, nh))
            last_dim = nh
        self.action_head = nn.Linear(last_dim, action_num)
        self.action_head.weight.data.mul_(0.1)
        self.action_head.bias.data.mul_(0.0)

    def forward(self, x):
        for affine in self.affine_layers:
            x = self.activation(affine(x))
        action_prob = F.softmax(self.action_head(x))  # expect: TCK608
        return action_prob

    def select_action(self, x):
        action_prob = self.forward(x)
        return action_prob.multinomial(1)

    def get_kl(self, x):
        action_prob1 = self.forward(x)
        action_prob0 = Variable(action_prob1.data)  # expect: TCK703
        kl = action_prob0 * (torch.log(action_prob0) - torch.log(action_prob1))
        return kl.sum(1, keepdim=True)

    def get_log_prob(self, x, actions):
        action_prob = self.forward(x)
        return torch.log(action_prob.gather(1, actions.long().unsqueeze(1)))


class Value(nn.Module):
    def __init__(self, state_dim, hidden_size=(128, 128)):
        super().__init__()
        dims = (state_dim,) + tuple(hidden_size)
        self.affine_layers = nn.ModuleList(nn.Linear(a, b) for a, b in zip(dims, dims[1:]))
        self.value_head = nn.Linear(dims[-1], 1)

    def forward(self, x):
        for affine in self.affine_layers:
            x = torch.tanh(affine(x))
        return self.value_head(x)
