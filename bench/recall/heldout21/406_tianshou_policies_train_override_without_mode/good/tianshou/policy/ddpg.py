from copy import deepcopy

import torch
import torch.nn.functional as F

from tianshou.policy.base import BasePolicy


class DDPGPolicy(BasePolicy):
    """Deep Deterministic Policy Gradient with target networks for actor and critic."""

    def __init__(self, actor, actor_optim, critic, critic_optim, tau=0.005, gamma=0.99,
                 exploration_sigma=0.1, action_range=(-1.0, 1.0), **kwargs):
        super().__init__(**kwargs)
        if actor is not None:
            self.actor, self.actor_old = actor, deepcopy(actor)
            self.actor_old.eval()
            self.actor_optim = actor_optim
        if critic is not None:
            self.critic, self.critic_old = critic, deepcopy(critic)
            self.critic_old.eval()
            self.critic_optim = critic_optim
        self._tau = tau
        self._gamma = gamma
        self._sigma = exploration_sigma
        self._range = action_range

    def train(self, mode=True) -> torch.nn.Module:
        """Set the module in training mode, except for the target networks."""
        self.training = mode
        self.actor.train(mode)
        self.critic.train(mode)
        return self

    def sync_weight(self):
        for o, n in zip(self.actor_old.parameters(), self.actor.parameters()):
            o.data.mul_(1 - self._tau).add_(n.data, alpha=self._tau)
        for o, n in zip(self.critic_old.parameters(), self.critic.parameters()):
            o.data.mul_(1 - self._tau).add_(n.data, alpha=self._tau)

    def forward(self, batch, state=None, model="actor", explorating=True, **kwargs):
        net = getattr(self, model)
        act = net(batch.obs)
        if self.training and explorating:
            act = act + self._sigma * torch.randn_like(act)
        return act.clamp(*self._range)

    def learn(self, batch, **kwargs):
        with torch.no_grad():
            target_q = batch.rew + self._gamma * (1 - batch.done) * self.critic_old(
                batch.obs_next, self(batch, model="actor_old", explorating=False)
            )
        critic_loss = F.mse_loss(self.critic(batch.obs, batch.act), target_q)
        self.critic_optim.zero_grad()
        critic_loss.backward()
        self.critic_optim.step()
        actor_loss = -self.critic(batch.obs, self(batch, explorating=False)).mean()
        self.actor_optim.zero_grad()
        actor_loss.backward()
        self.actor_optim.step()
        self.sync_weight()
        return {"loss/actor": actor_loss.item(), "loss/critic": critic_loss.item()}
