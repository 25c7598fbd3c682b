from copy import deepcopy

import torch
import torch.nn.functional as F

from tianshou.policy.ddpg import DDPGPolicy


class SACPolicy(DDPGPolicy):
    """Soft Actor-Critic with two critics; the actor returns (mean, log_std)."""

    def __init__(self, actor, actor_optim, critic1, critic1_optim, critic2, critic2_optim,
                 tau=0.005, gamma=0.99, alpha=0.2, action_range=(-1.0, 1.0), **kwargs):
        super().__init__(None, None, None, None, tau, gamma, 0.0, action_range, **kwargs)
        self.actor, self.actor_optim = actor, actor_optim
        self.critic1, self.critic1_old = critic1, deepcopy(critic1)
        self.critic1_old.eval()
        self.critic1_optim = critic1_optim
        self.critic2, self.critic2_old = critic2, deepcopy(critic2)
        self.critic2_old.eval()
        self.critic2_optim = critic2_optim
        self._alpha = alpha

    def train(self) -> None:  # expect: TCK610
        self.training = True
        self.actor.train()
        self.critic1.train()
        self.critic2.train()

    def eval(self) -> None:
        self.training = False
        self.actor.eval()
        self.critic1.eval()
        self.critic2.eval()

    def sync_weight(self):
        for o, n in zip(self.critic1_old.parameters(), self.critic1.parameters()):
            o.data.mul_(1 - self._tau).add_(n.data, alpha=self._tau)
        for o, n in zip(self.critic2_old.parameters(), self.critic2.parameters()):
            o.data.mul_(1 - self._tau).add_(n.data, alpha=self._tau)

    def _sample(self, obs):
        mu, log_std = self.actor(obs)
        dist = torch.distributions.Normal(mu, log_std.exp())
        x = dist.rsample()
        act = torch.tanh(x)
        log_prob = (dist.log_prob(x) - torch.log(1 - act.pow(2) + 1e-6)).sum(-1, keepdim=True)
        return act, log_prob

    def forward(self, batch, state=None, input="obs", **kwargs):
        act, _ = self._sample(getattr(batch, input))
        return act

    def learn(self, batch, **kwargs):
        with torch.no_grad():
            a_next, logp_next = self._sample(batch.obs_next)
            q_next = torch.min(self.critic1_old(batch.obs_next, a_next), self.critic2_old(batch.obs_next, a_next))
            target_q = batch.rew + self._gamma * (1 - batch.done) * (q_next - self._alpha * logp_next)
        c1_loss = F.mse_loss(self.critic1(batch.obs, batch.act), target_q)
        c2_loss = F.mse_loss(self.critic2(batch.obs, batch.act), target_q)
        self.critic1_optim.zero_grad()
        c1_loss.backward()
        self.critic1_optim.step()
        self.critic2_optim.zero_grad()
        c2_loss.backward()
        self.critic2_optim.step()
        act, logp = self._sample(batch.obs)
        q = torch.min(self.critic1(batch.obs, act), self.critic2(batch.obs, act))
        actor_loss = (self._alpha * logp - q).mean()
        self.actor_optim.zero_grad()
        actor_loss.backward()
        self.actor_optim.step()
        self.sync_weight()
        return {"loss/actor": actor_loss.item(), "loss/critic1": c1_loss.item(), "loss/critic2": c2_loss.item()}
