import torch as th
import torch.nn as nn
from torch.distributions import Categorical


class BasePolicy(nn.Module):
    def __init__(self, obs_dim, n_actions):
        super().__init__()
        self.obs_dim = obs_dim
        self.n_actions = n_actions

    def _predict(self, observation, deterministic=False):
        raise NotImplementedError

    def predict(self, observation, deterministic=False):
        with th.no_grad():
            return self._predict(observation, deterministic)


class ActorCriticPolicy(BasePolicy):
    def __init__(self, obs_dim, n_actions, hidden=64):
        super().__init__(obs_dim, n_actions)
        self.features = nn.Sequential(nn.Linear(obs_dim, hidden), nn.Tanh(), nn.Linear(hidden, hidden), nn.Tanh())
        self.action_net = nn.Linear(hidden, n_actions)
        self.value_net = nn.Linear(hidden, 1)

    def _distribution(self, obs):
        return Categorical(logits=self.action_net(self.features(obs)))

    def forward(self, obs, deterministic=False):
        latent = self.features(obs)
        dist = Categorical(logits=self.action_net(latent))
        actions = dist.probs.argmax(-1) if deterministic else dist.sample()
        return actions, self.value_net(latent).squeeze(-1), dist.log_prob(actions)

    def evaluate_actions(self, obs, actions):
        latent = self.features(obs)
        dist = Categorical(logits=self.action_net(latent))
        return self.value_net(latent).squeeze(-1), dist.log_prob(actions), dist.entropy()

    def _predict(self, observation, deterministic=False):
        return self.forward(observation, deterministic)[0]
