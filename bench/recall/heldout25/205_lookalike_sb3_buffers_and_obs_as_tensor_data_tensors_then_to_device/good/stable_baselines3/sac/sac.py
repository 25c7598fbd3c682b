import copy

import numpy as np
import torch as th
import torch.nn.functional as F
from torch import nn

from stable_baselines3.common.buffers import ReplayBuffer
from stable_baselines3.common.utils import obs_as_tensor, polyak_update


class Actor(nn.Module):
    def __init__(self, obs_dim, action_dim, hidden=256):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(obs_dim, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU())
        self.mu = nn.Linear(hidden, action_dim)
        self.log_std = nn.Linear(hidden, action_dim)

    def action_log_prob(self, obs):
        h = self.net(obs)
        mean, log_std = self.mu(h), self.log_std(h).clamp(-20, 2)
        dist = th.distributions.Normal(mean, log_std.exp())
        u = dist.rsample()
        action = th.tanh(u)
        log_prob = (dist.log_prob(u) - th.log(1 - action.pow(2) + 1e-6)).sum(-1)
        return action, log_prob


class Critic(nn.Module):
    def __init__(self, obs_dim, action_dim, hidden=256):
        super().__init__()
        self.q1 = nn.Sequential(nn.Linear(obs_dim + action_dim, hidden), nn.ReLU(), nn.Linear(hidden, 1))
        self.q2 = nn.Sequential(nn.Linear(obs_dim + action_dim, hidden), nn.ReLU(), nn.Linear(hidden, 1))

    def forward(self, obs, action):
        x = th.cat([obs, action], dim=1)
        return self.q1(x), self.q2(x)


class SAC:
    def __init__(self, env, learning_rate=3e-4, buffer_size=1_000_000, batch_size=256, tau=0.005, gamma=0.99, ent_coef="auto"):
        self.env = env
        obs_dim = env.observation_space.shape[0]
        action_dim = env.action_space.shape[0]
        self.device = th.device("cuda" if th.cuda.is_available() else "cpu")
        self.actor = Actor(obs_dim, action_dim).to(self.device)
        self.critic = Critic(obs_dim, action_dim).to(self.device)
        self.critic_target = copy.deepcopy(self.critic)
        self.actor_optimizer = th.optim.Adam(self.actor.parameters(), lr=learning_rate)
        self.critic_optimizer = th.optim.Adam(self.critic.parameters(), lr=learning_rate)
        self.replay_buffer = ReplayBuffer(buffer_size, obs_dim, action_dim, device=self.device)
        self.batch_size = batch_size
        self.tau = tau
        self.gamma = gamma
        self.ent_coef = ent_coef
        self.target_entropy = -float(np.prod(env.action_space.shape))
        self._setup_ent_coef()

    def _setup_ent_coef(self):
        if isinstance(self.ent_coef, str) and self.ent_coef.startswith("auto"):
            self.log_ent_coef = th.log(th.ones(1, device=self.device) * 1.0).requires_grad_(True)
            self.ent_coef_optimizer = th.optim.Adam([self.log_ent_coef], lr=3e-4)
        else:
            # a fixed coefficient given as a Python float
            self.ent_coef_optimizer = None
            self.ent_coef_tensor = th.tensor(float(self.ent_coef)).to(self.device)

    def train(self, gradient_steps: int) -> None:
        for _ in range(gradient_steps):
            replay_data = self.replay_buffer.sample(self.batch_size)
            actions_pi, log_prob = self.actor.action_log_prob(replay_data.observations)
            log_prob = log_prob.reshape(-1, 1)

            if self.ent_coef_optimizer is not None:
                ent_coef = th.exp(self.log_ent_coef.detach())
                ent_coef_loss = -(self.log_ent_coef * (log_prob + self.target_entropy).detach()).mean()
                self.ent_coef_optimizer.zero_grad()
                ent_coef_loss.backward()
                self.ent_coef_optimizer.step()
            else:
                ent_coef = self.ent_coef_tensor

            with th.no_grad():
                next_actions, next_log_prob = self.actor.action_log_prob(replay_data.next_observations)
                next_q = th.min(*self.critic_target(replay_data.next_observations, next_actions))
                next_q = next_q - ent_coef * next_log_prob.reshape(-1, 1)
                target_q = replay_data.rewards + (1 - replay_data.dones) * self.gamma * next_q

            current_q1, current_q2 = self.critic(replay_data.observations, replay_data.actions)
            critic_loss = 0.5 * (F.mse_loss(current_q1, target_q) + F.mse_loss(current_q2, target_q))
            self.critic_optimizer.zero_grad()
            critic_loss.backward()
            self.critic_optimizer.step()

            q_pi = th.min(*self.critic(replay_data.observations, actions_pi))
            actor_loss = (ent_coef * log_prob - q_pi).mean()
            self.actor_optimizer.zero_grad()
            actor_loss.backward()
            self.actor_optimizer.step()
            polyak_update(self.critic.parameters(), self.critic_target.parameters(), self.tau)

    def learn(self, total_timesteps: int, learning_starts: int = 100) -> "SAC":
        obs, _ = self.env.reset()
        for step in range(total_timesteps):
            if step < learning_starts:
                action = self.env.action_space.sample()
            else:
                with th.no_grad():
                    action, _ = self.actor.action_log_prob(obs_as_tensor(obs[None], self.device).float())
                action = action[0].cpu().numpy()
            next_obs, reward, terminated, truncated, _ = self.env.step(action)
            self.replay_buffer.add(obs, next_obs, action, reward, terminated)
            obs = next_obs if not (terminated or truncated) else self.env.reset()[0]
            if step >= learning_starts:
                self.train(gradient_steps=1)
        return self
