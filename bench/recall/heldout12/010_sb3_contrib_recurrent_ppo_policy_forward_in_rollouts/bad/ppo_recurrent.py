import gymnasium as gym
import numpy as np
import torch

from policies import RecurrentActorCriticPolicy


class RecurrentPPO:
    def __init__(self, env_id="CartPole-v1", n_steps=128, lr=3e-4, clip_range=0.2, device="cpu"):
        self.env = gym.make(env_id)
        self.device = torch.device(device)
        obs_dim = self.env.observation_space.shape[0]
        self.policy = RecurrentActorCriticPolicy(obs_dim, self.env.action_space.n).to(self.device)
        self.optimizer = torch.optim.Adam(self.policy.parameters(), lr=lr)
        self.n_steps = n_steps
        self.clip_range = clip_range
        self._last_obs, _ = self.env.reset()
        self._last_episode_start = 1.0
        self._last_lstm_states = (torch.zeros(1, 1, 64), torch.zeros(1, 1, 64))

    def collect_rollouts(self):
        buffer = {"obs": [], "actions": [], "rewards": [], "values": [], "log_probs": [], "starts": []}
        lstm_states = self._last_lstm_states
        init_states = lstm_states
        for _ in range(self.n_steps):
            with torch.no_grad():
                obs_tensor = torch.as_tensor(self._last_obs, dtype=torch.float32).unsqueeze(0)
                episode_starts = torch.tensor([self._last_episode_start], dtype=torch.float32)
                actions, values, log_probs, lstm_states = self.policy.forward(obs_tensor, lstm_states, episode_starts)  # expect: TCK105
            new_obs, reward, terminated, truncated, _ = self.env.step(actions.item())
            done = terminated or truncated
            for key, value in zip(buffer, (obs_tensor, actions, reward, values, log_probs, episode_starts)):
                buffer[key].append(value)
            self._last_obs = self.env.reset()[0] if done else new_obs
            self._last_episode_start = float(done)
        self._last_lstm_states = lstm_states
        return buffer, init_states

    def train(self, buffer, init_states, n_epochs=4):
        obs = torch.cat(buffer["obs"])
        actions = torch.cat(buffer["actions"])
        starts = torch.cat(buffer["starts"])
        old_log_probs = torch.cat(buffer["log_probs"])
        returns = torch.as_tensor(np.cumsum(buffer["rewards"][::-1])[::-1].copy(), dtype=torch.float32)
        advantages = returns - torch.cat(buffer["values"])
        for _ in range(n_epochs):
            values, log_probs, entropy = self.policy.evaluate_actions(obs, actions, init_states, starts)
            ratio = torch.exp(log_probs - old_log_probs)
            policy_loss = -torch.min(ratio * advantages, torch.clamp(ratio, 1 - self.clip_range, 1 + self.clip_range) * advantages).mean()
            loss = policy_loss + 0.5 * (returns - values).pow(2).mean() - 0.01 * entropy.mean()
            self.optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(self.policy.parameters(), 0.5)
            self.optimizer.step()

    def learn(self, total_timesteps=20_000):
        for _ in range(total_timesteps // self.n_steps):
            buffer, init_states = self.collect_rollouts()
            self.train(buffer, init_states)
        return self


if __name__ == "__main__":
    RecurrentPPO().learn()
