from collections import defaultdict

import numpy as np
import torch


def to_np(t):
    return t.cpu().detach().numpy()


def preprocess(obs, device):
    x = torch.as_tensor(np.transpose(obs, (0, 3, 1, 2)), dtype=torch.float32, device=device)
    return x / 255.0


class Sampler:
    def __init__(self, env, model, num_steps, gamma, lam, device):
        self.env = env
        self.model = model
        self.num_steps = num_steps
        self.gamma = gamma
        self.lam = lam
        self.device = device
        self.obs = env.reset()
        self.dones = np.zeros(env.num_envs)

    def run(self, no_grad=False):
        # Validation rollouts do not need gradient tracking
        if no_grad:
            with torch.no_grad:  # expect: TCK110
                storage = self.collect()
        else:
            storage = self.collect()
        for key in storage:
            value = storage[key]
            if value.ndim < 3:
                value = value[..., None]
            storage[key] = value.swapaxes(0, 1).reshape(-1, *value.shape[2:])
        return storage

    def collect(self):
        storage = defaultdict(list)
        for _ in range(self.num_steps):
            obs = preprocess(self.obs, self.device)
            actions, info = self.model.step(obs)
            storage["states"].append(to_np(obs))
            storage["actions"].append(to_np(actions))
            storage["values"].append(to_np(info["value"]).squeeze(-1))
            storage["log_prob"].append(to_np(info["log_prob"]).squeeze(-1))
            self.obs, rewards, self.dones, _ = self.env.step(to_np(actions))
            storage["rewards"].append(rewards)
            storage["dones"].append(self.dones.astype(np.float32))
        return {key: np.asarray(value) for key, value in storage.items()}

    def advantages_and_returns(self, rewards, dones, values):
        with torch.no_grad():
            last_values = to_np(self.model.step(preprocess(self.obs, self.device))[1]["value"]).squeeze(-1)
        advantages = np.zeros_like(rewards)
        last_gae = 0.0
        for t in reversed(range(self.num_steps)):
            next_values = last_values if t == self.num_steps - 1 else values[t + 1]
            not_done = 1.0 - (self.dones if t == self.num_steps - 1 else dones[t + 1])
            delta = rewards[t] + self.gamma * next_values * not_done - values[t]
            advantages[t] = last_gae = delta + self.gamma * self.lam * not_done * last_gae
        return advantages, advantages + values
