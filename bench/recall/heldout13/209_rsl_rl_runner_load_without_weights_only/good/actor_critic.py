import torch
import torch.nn as nn
from torch.distributions import Normal


class ActorCritic(nn.Module):
    def __init__(self, num_obs, num_critic_obs, num_actions, hidden=(256, 128), init_noise_std=1.0):
        super().__init__()
        self.actor = nn.Sequential(
            nn.Linear(num_obs, hidden[0]), nn.ELU(),
            nn.Linear(hidden[0], hidden[1]), nn.ELU(),
            nn.Linear(hidden[1], num_actions),
        )
        self.critic = nn.Sequential(
            nn.Linear(num_critic_obs, hidden[0]), nn.ELU(),
            nn.Linear(hidden[0], hidden[1]), nn.ELU(),
            nn.Linear(hidden[1], 1),
        )
        self.std = nn.Parameter(init_noise_std * torch.ones(num_actions))

    def distribution(self, obs):
        return Normal(self.actor(obs), self.std.expand(obs.shape[0], -1))

    def act(self, obs):
        return self.distribution(obs).sample()

    def act_inference(self, obs):
        return self.actor(obs)

    def evaluate(self, critic_obs):
        return self.critic(critic_obs)


class PPO:
    def __init__(self, actor_critic, learning_rate=1e-3, clip_param=0.2, device="cpu"):
        self.device = device
        self.actor_critic = actor_critic.to(device)
        self.optimizer = torch.optim.Adam(self.actor_critic.parameters(), lr=learning_rate)
        self.clip_param = clip_param

    def update(self, obs, actions, old_log_prob, advantages, returns):
        dist = self.actor_critic.distribution(obs)
        log_prob = dist.log_prob(actions).sum(-1)
        ratio = torch.exp(log_prob - old_log_prob)
        surrogate = torch.min(ratio * advantages,
                              torch.clamp(ratio, 1 - self.clip_param, 1 + self.clip_param) * advantages)
        value_loss = (self.actor_critic.evaluate(obs).squeeze(-1) - returns).pow(2).mean()
        loss = -surrogate.mean() + 0.5 * value_loss
        self.optimizer.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(self.actor_critic.parameters(), 1.0)
        self.optimizer.step()
        return loss.item()
