import numpy as np
import torch as th


class LossSecondMomentResampler:
    def __init__(self, num_timesteps):
        self.num_timesteps = num_timesteps

    def weights(self):
        return np.ones([self.num_timesteps])

    def sample(self, batch_size):
        w = self.weights()
        p = w / np.sum(w)
        indices_np = np.random.choice(len(p), size=(batch_size,), p=p)
        indices = th.from_numpy(indices_np).long()
        weights = th.from_numpy(1 / (len(p) * p[indices_np])).float()
        return indices, weights
