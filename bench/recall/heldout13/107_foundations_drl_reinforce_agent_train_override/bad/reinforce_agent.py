import numpy as np
import torch
import torch.nn as nn
import torch.optim as optim
from torch.distributions import Categorical

from base_agent import BaseAgent


def calculate_returns(rewards, gamma):
    returns, running = [], 0.0
    for r in reversed(rewards):
        running = r + gamma * running
        returns.append(running)
    returns = torch.tensor(returns[::-1], dtype=torch.float32)
    return (returns - returns.mean()) / (returns.std() + 1e-8)


class DiscreteReinforceAgent(nn.Module, BaseAgent):
    """REINFORCE agent for environments with discrete actions."""

    def __init__(self, *, obs_dim, act_dim, hidden_sizes=(128, 64), lr=1e-3):
        super().__init__()
        sizes = [obs_dim, *hidden_sizes]
        layers = []
        for i in range(len(sizes) - 1):
            layers += [nn.Linear(sizes[i], sizes[i + 1]), nn.ReLU(), nn.Dropout(0.1)]
        layers.append(nn.Linear(sizes[-1], act_dim))
        self.net = nn.Sequential(*layers)
        self.optimizer = optim.Adam(self.parameters(), lr=lr)
        self.episode_reset()

    def forward(self, x):
        return self.net(x)

    def act(self, observation):
        logits = self(torch.from_numpy(observation.astype(np.float32)))
        dist = Categorical(logits=logits)
        action = dist.sample()
        self.log_probs.append(dist.log_prob(action))
        return action.item()

    def episode_reset(self):
        self.rewards = []
        self.log_probs = []

    def store_step(self, reward):
        self.rewards.append(reward)

    def train(self, *, gamma):  # expect: TCK610
        """One REINFORCE update over the episode just played."""
        returns = calculate_returns(self.rewards, gamma=gamma)
        loss = torch.sum(-torch.stack(self.log_probs) * returns)
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        return loss.item()
