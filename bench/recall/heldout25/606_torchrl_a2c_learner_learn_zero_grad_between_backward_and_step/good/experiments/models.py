import torch.nn as nn


class ACNet(nn.Module):
    """Shared trunk with an actor (action probabilities) head and a critic (state value) head."""

    def __init__(self, input_size, output_size):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(input_size, 64), nn.ReLU())
        self.actor = nn.Sequential(nn.Linear(64, output_size), nn.Softmax(dim=1))
        self.critic = nn.Linear(64, 1)

    def forward(self, obs):
        h = self.net(obs)
        return self.critic(h), self.actor(h)
