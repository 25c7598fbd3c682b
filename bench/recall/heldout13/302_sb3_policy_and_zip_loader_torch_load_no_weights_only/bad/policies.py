from typing import Any, Dict

import torch as th
from torch import nn


class BasePolicy(nn.Module):
    def __init__(self, obs_dim: int, n_actions: int, net_arch=(64, 64)):
        super().__init__()
        self.obs_dim = obs_dim
        self.n_actions = n_actions
        self.net_arch = list(net_arch)
        layers = []
        last = obs_dim
        for width in self.net_arch:
            layers += [nn.Linear(last, width), nn.Tanh()]
            last = width
        self.mlp = nn.Sequential(*layers)
        self.action_net = nn.Linear(last, n_actions)

    def forward(self, obs: th.Tensor) -> th.Tensor:
        return self.action_net(self.mlp(obs))

    def _get_constructor_parameters(self) -> Dict[str, Any]:
        return {"obs_dim": self.obs_dim, "n_actions": self.n_actions, "net_arch": self.net_arch}

    def save(self, path: str) -> None:
        th.save({"state_dict": self.state_dict(), "data": self._get_constructor_parameters()}, path)

    @classmethod
    def load(cls, path: str, device: str = "auto") -> "BasePolicy":
        device = th.device("cuda" if device == "auto" and th.cuda.is_available() else "cpu")
        saved_variables = th.load(path, map_location=device)  # expect: TCK401
        model = cls(**saved_variables["data"])
        model.load_state_dict(saved_variables["state_dict"])
        model.to(device)
        return model
