import torch
import torch.nn as nn

from valuenorm import ValueNorm


class Critic(nn.Module):
    def __init__(self, obs_dim, hidden=64):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(obs_dim, hidden), nn.ReLU(), nn.Linear(hidden, hidden),
                                 nn.ReLU(), nn.Linear(hidden, 1))

    def forward(self, obs):
        return self.net(obs)


class Actor(nn.Module):
    def __init__(self, obs_dim, n_actions, hidden=64):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(obs_dim, hidden), nn.ReLU(), nn.Linear(hidden, n_actions))

    def forward(self, obs):
        return torch.distributions.Categorical(logits=self.net(obs))


class MAPPO:
    def __init__(self, obs_dim, n_actions, device, use_valuenorm=True, clip_param=0.2, lr=5e-4):
        self.device = device
        self.clip_param = clip_param
        self.actor = Actor(obs_dim, n_actions).to(device)
        self.critic = Critic(obs_dim).to(device)
        self.actor_optim = torch.optim.Adam(self.actor.parameters(), lr=lr)
        self.critic_optim = torch.optim.Adam(self.critic.parameters(), lr=lr)
        if use_valuenorm:
            self.value_normalizer = ValueNorm(1).to(self.device)
        else:
            self.value_normalizer = None

    def update(self, obs, actions, old_log_probs, returns, advantages):
        dist = self.actor(obs)
        ratio = torch.exp(dist.log_prob(actions) - old_log_probs)
        surr = torch.min(ratio * advantages,
                         torch.clamp(ratio, 1 - self.clip_param, 1 + self.clip_param) * advantages)
        policy_loss = -surr.mean() - 0.01 * dist.entropy().mean()
        self.actor_optim.zero_grad()
        policy_loss.backward()
        nn.utils.clip_grad_norm_(self.actor.parameters(), 10.0)
        self.actor_optim.step()

        values = self.critic(obs)
        if self.value_normalizer is not None:
            self.value_normalizer.update(returns)
            returns = self.value_normalizer.normalize(returns)
        value_loss = (returns - values).pow(2).mean()
        self.critic_optim.zero_grad()
        value_loss.backward()
        nn.utils.clip_grad_norm_(self.critic.parameters(), 10.0)
        self.critic_optim.step()
        return policy_loss.item(), value_loss.item()

    def save(self, save_dir):
        torch.save(self.actor.state_dict(), f"{save_dir}/actor.pt")
        torch.save(self.critic.state_dict(), f"{save_dir}/critic.pt")
        if self.value_normalizer is not None:
            torch.save(self.value_normalizer.state_dict(), f"{save_dir}/vnorm.pt")
