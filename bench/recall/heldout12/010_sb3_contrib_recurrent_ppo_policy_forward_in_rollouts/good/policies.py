import torch
import torch.nn as nn
from torch.distributions import Categorical


class BasePolicy(nn.Module):
    def __init__(self, obs_dim, n_actions):
        super().__init__()
        self.obs_dim = obs_dim
        self.n_actions = n_actions


class RecurrentActorCriticPolicy(BasePolicy):
    def __init__(self, obs_dim, n_actions, hidden=64):
        super().__init__(obs_dim, n_actions)
        self.features = nn.Sequential(nn.Linear(obs_dim, hidden), nn.Tanh())
        self.lstm = nn.LSTM(hidden, hidden)
        self.action_net = nn.Linear(hidden, n_actions)
        self.value_net = nn.Linear(hidden, 1)

    def _process_sequence(self, obs, lstm_states, episode_starts):
        h, c = lstm_states
        mask = (1.0 - episode_starts).view(1, -1, 1)
        out, (h, c) = self.lstm(self.features(obs).unsqueeze(0), (h * mask, c * mask))
        return out.squeeze(0), (h, c)

    def forward(self, obs, lstm_states, episode_starts):
        latent, lstm_states = self._process_sequence(obs, lstm_states, episode_starts)
        dist = Categorical(logits=self.action_net(latent))
        actions = dist.sample()
        return actions, self.value_net(latent).squeeze(-1), dist.log_prob(actions), lstm_states

    def evaluate_actions(self, obs, actions, lstm_states, episode_starts):
        latent, _ = self._process_sequence(obs, lstm_states, episode_starts)
        dist = Categorical(logits=self.action_net(latent))
        return self.value_net(latent).squeeze(-1), dist.log_prob(actions), dist.entropy()
