from copy import deepcopy

import numpy as np
import torch
import torch.nn.functional as F

from tianshou.policy.base import BasePolicy


class DQNPolicy(BasePolicy):
    """Deep Q-Network with an optional target network."""

    def __init__(self, model, optim, discount_factor=0.99, target_update_freq=0, **kwargs):
        super().__init__(**kwargs)
        self.model = model
        self.optim = optim
        self.eps = 0.0
        self._gamma = discount_factor
        self._target = target_update_freq > 0
        self._freq = target_update_freq
        self._cnt = 0
        if self._target:
            self.model_old = deepcopy(self.model)
            self.model_old.eval()

    def set_eps(self, eps):
        self.eps = eps

    def train(self, mode=True) -> torch.nn.Module:
        """Set the module in training mode, except for the target network."""
        self.training = mode
        self.model.train(mode)
        return self

    def sync_weight(self):
        self.model_old.load_state_dict(self.model.state_dict())

    def forward(self, batch, state=None, model="model", **kwargs):
        q = getattr(self, model)(batch.obs)
        act = q.argmax(dim=1).cpu().numpy()
        if self.training and self.eps > 0:
            rand = np.random.rand(len(act)) < self.eps
            act[rand] = np.random.randint(q.shape[1], size=int(rand.sum()))
        return act, q

    def learn(self, batch, **kwargs):
        if self._target and self._cnt % self._freq == 0:
            self.sync_weight()
        with torch.no_grad():
            net = self.model_old if self._target else self.model
            target_q = batch.rew + self._gamma * (1 - batch.done) * net(batch.obs_next).max(dim=1).values
        q = self.model(batch.obs).gather(1, batch.act.long().unsqueeze(1)).squeeze(1)
        loss = F.mse_loss(q, target_q)
        self.optim.zero_grad()
        loss.backward()
        self.optim.step()
        self._cnt += 1
        return {"loss": loss.item()}
