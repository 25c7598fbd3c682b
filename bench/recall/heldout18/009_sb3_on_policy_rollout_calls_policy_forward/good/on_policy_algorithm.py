import gymnasium as gym
import numpy as np
import torch as th

from policies import ActorCriticPolicy


class RolloutBuffer:
    def __init__(self):
        self.reset()

    def reset(self):
        self.obs, self.actions, self.rewards, self.values, self.log_probs, self.dones = [], [], [], [], [], []

    def add(self, obs, action, reward, value, log_prob, done):
        self.obs.append(obs)
        self.actions.append(action)
        self.rewards.append(reward)
        self.values.append(value)
        self.log_probs.append(log_prob)
        self.dones.append(done)


class OnPolicyAlgorithm:
    def __init__(self, env_id="CartPole-v1", n_steps=2048, learning_rate=3e-4, device="cpu"):
        self.env = gym.make(env_id)
        self.n_steps = n_steps
        self.device = th.device(device)
        obs_dim = self.env.observation_space.shape[0]
        self.policy = ActorCriticPolicy(obs_dim, self.env.action_space.n).to(self.device)
        self.policy.optimizer = th.optim.Adam(self.policy.parameters(), lr=learning_rate)
        self.rollout_buffer = RolloutBuffer()
        self._last_obs, _ = self.env.reset()

    def collect_rollouts(self):
        self.policy.eval()
        self.rollout_buffer.reset()
        for _ in range(self.n_steps):
            with th.no_grad():
                obs_tensor = th.as_tensor(self._last_obs, dtype=th.float32, device=self.device).unsqueeze(0)
                actions, values, log_probs = self.policy(obs_tensor)
            action = int(actions.item())
            new_obs, reward, terminated, truncated, _ = self.env.step(action)
            done = terminated or truncated
            self.rollout_buffer.add(self._last_obs, action, reward, values.item(), log_probs.item(), done)
            self._last_obs = self.env.reset()[0] if done else new_obs

    def train(self, gamma=0.99, n_epochs=10):
        self.policy.train()
        buf = self.rollout_buffer
        returns, running = [], 0.0
        for r, d in zip(reversed(buf.rewards), reversed(buf.dones)):
            running = r + gamma * running * (1.0 - float(d))
            returns.insert(0, running)
        obs = th.as_tensor(np.array(buf.obs), dtype=th.float32, device=self.device)
        actions = th.as_tensor(buf.actions, device=self.device)
        returns = th.as_tensor(returns, dtype=th.float32, device=self.device)
        old_values = th.as_tensor(buf.values, dtype=th.float32, device=self.device)
        advantages = returns - old_values
        for _ in range(n_epochs):
            values, log_prob, entropy = self.policy.evaluate_actions(obs, actions)
            loss = -(advantages * log_prob).mean() + 0.5 * (returns - values).pow(2).mean() - 0.01 * entropy.mean()
            self.policy.optimizer.zero_grad()
            loss.backward()
            th.nn.utils.clip_grad_norm_(self.policy.parameters(), 0.5)
            self.policy.optimizer.step()

    def learn(self, total_timesteps=100_000):
        steps = 0
        while steps < total_timesteps:
            self.collect_rollouts()
            self.train()
            steps += self.n_steps
        return self


if __name__ == "__main__":
    OnPolicyAlgorithm().learn()
