import torch
import torch.nn as nn
from torch.nn.functional import log_softmax, softmax


class PolicyNet(nn.Module):
    def __init__(self, obs_dim, n_actions, hidden=64):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(obs_dim, hidden), nn.Tanh(), nn.Linear(hidden, n_actions))

    def forward(self, obs):
        return self.body(obs)


class ReinforceAgent:
    def __init__(self, obs_dim, n_actions, lr=1e-2, gamma=0.99):
        self.policy = PolicyNet(obs_dim, n_actions)
        self.optimizer = torch.optim.Adam(self.policy.parameters(), lr=lr)
        self.gamma = gamma
        self.log_probs = []
        self.rewards = []

    def _action_probs(self, obs):
        logits = self.policy(torch.as_tensor(obs, dtype=torch.float32))
        return softmax(logits, dim=-1)

    def act(self, obs):
        probs = self._action_probs(obs)
        action = torch.multinomial(probs, 1).item()
        self.log_probs.append(torch.log(probs[action]))
        return action

    def finish_episode(self):
        returns, running = [], 0.0
        for r in reversed(self.rewards):
            running = r + self.gamma * running
            returns.insert(0, running)
        returns = torch.tensor(returns)
        returns = (returns - returns.mean()) / (returns.std() + 1e-8)
        loss = -(torch.stack(self.log_probs) * returns).sum()
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        self.log_probs.clear()
        self.rewards.clear()
        return loss.item()

    def batch_log_probs(self, obs_batch):
        return log_softmax(self.policy(obs_batch), dim=-1)
