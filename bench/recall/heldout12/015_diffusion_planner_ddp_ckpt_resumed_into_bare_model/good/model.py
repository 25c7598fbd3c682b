import torch
from torch import nn


class TrajectoryPlanner(nn.Module):
    def __init__(self, obs_dim=64, hidden=256, horizon=16):
        super().__init__()
        self.horizon = horizon
        self.encoder = nn.Sequential(nn.Linear(obs_dim, hidden), nn.GELU(), nn.Linear(hidden, hidden))
        self.decoder = nn.Linear(hidden, horizon * 2)

    def forward(self, obs):
        feat = self.encoder(obs)
        return self.decoder(feat).view(obs.shape[0], self.horizon, 2)
