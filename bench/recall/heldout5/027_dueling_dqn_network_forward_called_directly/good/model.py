import torch
import torch.nn as nn
import torch.nn.functional as F


class QNetwork(nn.Module):
    def __init__(self, n_state=4, n_action=2):
        super().__init__()
        self.fc1 = nn.Linear(n_state, 64)
        self.fc_value = nn.Linear(64, 256)
        self.fc_adv = nn.Linear(64, 256)
        self.value = nn.Linear(256, 1)
        self.adv = nn.Linear(256, n_action)

    def forward(self, state):
        y = F.relu(self.fc1(state))
        value = self.value(F.relu(self.fc_value(y)))
        adv = self.adv(F.relu(self.fc_adv(y)))
        return value + adv - adv.mean(dim=1, keepdim=True)

    def select_action(self, state):
        with torch.no_grad():
            return torch.argmax(self.forward(state), dim=1).item()
