import torch
import torch.nn as nn


class PendulumDx(nn.Module):
    """Differentiable pendulum dynamics parameterised by (gravity, mass, length)."""

    def __init__(self, params, dt=0.05):
        super().__init__()
        self.params = params
        self.dt = dt
        self.n_state, self.n_ctrl = 3, 1

    def forward(self, x, u):
        g, m, l = torch.unbind(self.params)
        cos_th, sin_th, dth = torch.unbind(x, dim=-1)
        th = torch.atan2(sin_th, cos_th)
        u = u.squeeze(-1).clamp(-2.0, 2.0)
        new_dth = dth + self.dt * (-3.0 * g / (2.0 * l) * torch.sin(th + torch.pi) + 3.0 * u / (m * l ** 2))
        new_th = th + self.dt * new_dth
        return torch.stack((torch.cos(new_th), torch.sin(new_th), new_dth), dim=-1)


class PendulumEnv:
    def __init__(self, n_train=100, horizon=20):
        self.true_dx = PendulumDx(torch.tensor((10.0, 1.0, 1.0)))
        self.horizon = horizon
        self.train_x = torch.randn(n_train, horizon, 3)
        self.train_u = torch.randn(n_train, horizon, 1)

    def true_objective(self):
        q = torch.cat((torch.ones(3), 0.001 * torch.ones(1)))
        p = torch.zeros(4)
        return q, p


def load_env(name):
    if name != "pendulum":
        raise ValueError(f"unknown environment {name}")
    return PendulumEnv()
