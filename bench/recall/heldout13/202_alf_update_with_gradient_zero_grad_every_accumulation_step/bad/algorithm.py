import torch
import torch.nn as nn


class Algorithm(nn.Module):
    """Base class of an RL algorithm: owns its optimizers and applies its own updates."""

    def __init__(self, optimizer_cls=torch.optim.Adam, lr=3e-4, grad_acc_steps=1,
                 max_grad_norm=None):
        super().__init__()
        self._optimizer_cls = optimizer_cls
        self._lr = lr
        self._grad_acc_steps = grad_acc_steps
        self._max_grad_norm = max_grad_norm
        self._grad_acc_counter = 0
        self._optimizers = []

    def build_optimizers(self):
        self._optimizers = [self._optimizer_cls(self.parameters(), lr=self._lr)]

    def optimizers(self):
        return self._optimizers

    def update_with_gradient(self, loss):
        """Backprop ``loss``; apply the optimizers once every ``grad_acc_steps`` calls."""
        optimizers = self.optimizers()
        for optimizer in optimizers:
            optimizer.zero_grad(set_to_none=True)  # expect: TCK111
        (loss / self._grad_acc_steps).backward()
        self._grad_acc_counter += 1
        if self._grad_acc_counter % self._grad_acc_steps == 0:
            if self._max_grad_norm is not None:
                nn.utils.clip_grad_norm_(self.parameters(), self._max_grad_norm)
            for optimizer in optimizers:
                optimizer.step()
        return loss.detach()


class ActorCriticAlgorithm(Algorithm):
    def __init__(self, obs_dim, num_actions, **kwargs):
        super().__init__(**kwargs)
        self.actor = nn.Sequential(nn.Linear(obs_dim, 64), nn.Tanh(), nn.Linear(64, num_actions))
        self.critic = nn.Sequential(nn.Linear(obs_dim, 64), nn.Tanh(), nn.Linear(64, 1))
        self.build_optimizers()

    def loss(self, obs, actions, returns):
        logits = self.actor(obs)
        values = self.critic(obs).squeeze(-1)
        log_probs = torch.distributions.Categorical(logits=logits).log_prob(actions)
        advantages = (returns - values).detach()
        policy_loss = -(log_probs * advantages).mean()
        value_loss = (returns - values).pow(2).mean()
        return policy_loss + 0.5 * value_loss
