import torch as th

from policies import BasePolicy
from save_util import load_from_zip_file


class PPO:
    def __init__(self, obs_dim: int, n_actions: int, learning_rate: float = 3e-4, device: str = "cpu"):
        self.device = th.device(device)
        self.policy = BasePolicy(obs_dim, n_actions).to(self.device)
        self.optimizer = th.optim.Adam(self.policy.parameters(), lr=learning_rate)

    def train_step(self, obs: th.Tensor, actions: th.Tensor, advantages: th.Tensor) -> float:
        logits = self.policy(obs)
        log_prob = th.distributions.Categorical(logits=logits).log_prob(actions)
        loss = -(log_prob * advantages).mean()
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        return loss.item()

    @classmethod
    def load(cls, path: str, device: str = "cpu") -> "PPO":
        data, params = load_from_zip_file(path, device=device)
        model = cls(data["obs_dim"], data["n_actions"], device=device)
        model.policy.load_state_dict(params["policy"])
        model.optimizer.load_state_dict(params["policy.optimizer"])
        return model
