from typing import NamedTuple

import numpy as np
import torch as th


class ReplayBufferSamples(NamedTuple):
    observations: th.Tensor
    actions: th.Tensor
    next_observations: th.Tensor
    dones: th.Tensor
    rewards: th.Tensor


class ReplayBuffer:
    """Transitions stored in host (numpy) memory; sampled batches are converted to tensors on the policy's device."""

    def __init__(self, buffer_size, obs_dim, action_dim, device="auto", n_envs=1):
        self.buffer_size = buffer_size
        self.n_envs = n_envs
        self.device = th.device("cuda" if device == "auto" and th.cuda.is_available() else "cpu")
        self.observations = np.zeros((buffer_size, n_envs, obs_dim), dtype=np.float32)
        self.next_observations = np.zeros((buffer_size, n_envs, obs_dim), dtype=np.float32)
        self.actions = np.zeros((buffer_size, n_envs, action_dim), dtype=np.float32)
        self.rewards = np.zeros((buffer_size, n_envs), dtype=np.float32)
        self.dones = np.zeros((buffer_size, n_envs), dtype=np.float32)
        self.pos = 0
        self.full = False

    def add(self, obs, next_obs, action, reward, done):
        self.observations[self.pos] = np.array(obs).copy()
        self.next_observations[self.pos] = np.array(next_obs).copy()
        self.actions[self.pos] = np.array(action).copy()
        self.rewards[self.pos] = np.array(reward).copy()
        self.dones[self.pos] = np.array(done).copy()
        self.pos += 1
        if self.pos == self.buffer_size:
            self.full = True
            self.pos = 0

    def to_torch(self, array: np.ndarray, copy: bool = True) -> th.Tensor:
        """Convert a numpy array to a PyTorch tensor on the buffer's device (copies the data by default)."""
        if copy:
            return th.tensor(array).to(self.device)
        return th.as_tensor(array).to(self.device)

    def sample(self, batch_size: int) -> ReplayBufferSamples:
        upper_bound = self.buffer_size if self.full else self.pos
        batch_inds = np.random.randint(0, upper_bound, size=batch_size)
        env_indices = np.random.randint(0, high=self.n_envs, size=(len(batch_inds),))
        data = (
            self.observations[batch_inds, env_indices, :],
            self.actions[batch_inds, env_indices, :],
            self.next_observations[batch_inds, env_indices, :],
            self.dones[batch_inds, env_indices].reshape(-1, 1),
            self.rewards[batch_inds, env_indices].reshape(-1, 1),
        )
        return ReplayBufferSamples(*tuple(map(self.to_torch, data)))
