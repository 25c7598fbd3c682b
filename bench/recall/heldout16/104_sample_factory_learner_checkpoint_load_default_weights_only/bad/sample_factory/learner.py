import glob
import logging
import os
from os.path import join

import torch
from torch import nn

log = logging.getLogger(__name__)


class ActorCritic(nn.Module):
    def __init__(self, obs_dim, num_actions, hidden=256):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(obs_dim, hidden), nn.ELU(), nn.Linear(hidden, hidden), nn.ELU())
        self.policy_head = nn.Linear(hidden, num_actions)
        self.value_head = nn.Linear(hidden, 1)

    def forward(self, obs):
        x = self.encoder(obs)
        return self.policy_head(x), self.value_head(x).squeeze(-1)


class Learner:
    def __init__(self, cfg, policy_id, obs_dim, num_actions):
        self.cfg = cfg
        self.policy_id = policy_id
        self.device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        self.actor_critic = ActorCritic(obs_dim, num_actions).to(self.device)
        self.optimizer = torch.optim.Adam(self.actor_critic.parameters(), lr=cfg.learning_rate)
        self.train_step = 0
        self.env_steps = 0
        self.best_performance = -1e9
        self.curr_lr = cfg.learning_rate

    def init(self):
        self.actor_critic.train()
        self.load_from_checkpoint(self.policy_id)

    def checkpoint_dir(self, policy_id):
        path = join(self.cfg.train_dir, self.cfg.experiment, f"checkpoint_p{policy_id}")
        os.makedirs(path, exist_ok=True)
        return path

    @staticmethod
    def get_checkpoints(checkpoints_dir, pattern="checkpoint_*"):
        return sorted(glob.glob(join(checkpoints_dir, pattern)))

    @staticmethod
    def load_checkpoint(checkpoints, device):
        if not checkpoints:
            log.warning("No checkpoints found")
            return None
        latest_checkpoint = checkpoints[-1]
        for attempt in range(3):  # survive spurious filesystem errors
            try:
                log.warning("Loading state from checkpoint %s...", latest_checkpoint)
                return torch.load(latest_checkpoint, map_location=device)  # expect: TCK401
            except Exception:
                log.exception("Could not load from checkpoint, attempt %d", attempt)
        return None

    def _load_state(self, checkpoint_dict, load_progress=True):
        if load_progress:
            self.train_step = checkpoint_dict["train_step"]
            self.env_steps = checkpoint_dict["env_steps"]
            self.best_performance = checkpoint_dict.get("best_performance", self.best_performance)
        self.actor_critic.load_state_dict(checkpoint_dict["model"])
        self.optimizer.load_state_dict(checkpoint_dict["optimizer"])
        self.curr_lr = checkpoint_dict.get("curr_lr", self.cfg.learning_rate)

    def load_from_checkpoint(self, policy_id, load_progress=True):
        checkpoints = self.get_checkpoints(self.checkpoint_dir(policy_id))
        checkpoint_dict = self.load_checkpoint(checkpoints, self.device)
        if checkpoint_dict is None:
            log.debug("Did not load from checkpoint, starting from scratch!")
        else:
            self._load_state(checkpoint_dict, load_progress=load_progress)

    def save(self):
        checkpoint = {
            "train_step": self.train_step,
            "env_steps": self.env_steps,
            "best_performance": self.best_performance,
            "model": self.actor_critic.state_dict(),
            "optimizer": self.optimizer.state_dict(),
            "curr_lr": self.curr_lr,
        }
        filepath = join(self.checkpoint_dir(self.policy_id), f"checkpoint_{self.train_step:09d}_{self.env_steps}.pth")
        torch.save(checkpoint, filepath)

    def train_on_batch(self, obs, actions, advantages, returns, old_log_probs, clip_ratio=0.1):
        logits, values = self.actor_critic(obs)
        dist = torch.distributions.Categorical(logits=logits)
        ratio = torch.exp(dist.log_prob(actions) - old_log_probs)
        policy_loss = -torch.min(ratio * advantages, torch.clamp(ratio, 1 - clip_ratio, 1 + clip_ratio) * advantages).mean()
        value_loss = (values - returns).pow(2).mean()
        loss = policy_loss + 0.5 * value_loss - 0.003 * dist.entropy().mean()
        self.optimizer.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(self.actor_critic.parameters(), 4.0)
        self.optimizer.step()
        self.train_step += 1
        self.env_steps += obs.shape[0]
        return loss.item()
