import torch
from torch import nn

BOARD_M, BOARD_N = 5, 5


class ResBlock(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.body = nn.Sequential(
            nn.Conv2d(channels, channels, 3, padding=1), nn.BatchNorm2d(channels), nn.ReLU(),
            nn.Conv2d(channels, channels, 3, padding=1), nn.BatchNorm2d(channels),
        )

    def forward(self, x):
        return torch.relu(self.body(x) + x)


class CRNet(nn.Module):
    """Policy/value network for Chain Reaction: 7 input planes, one policy logit per cell."""

    def __init__(self, hidden=(200, 100), channels=32):
        super().__init__()
        self.trunk = nn.Sequential(
            nn.Conv2d(7, channels, 3, padding=1), nn.BatchNorm2d(channels), nn.ReLU(),
            *[ResBlock(channels) for _ in range(5)],
            nn.Flatten(start_dim=1),
            nn.Linear(channels * BOARD_M * BOARD_N, hidden[0]), nn.BatchNorm1d(hidden[0]), nn.ReLU(), nn.Dropout(0.3),
            nn.Linear(hidden[0], hidden[1]), nn.BatchNorm1d(hidden[1]), nn.ReLU(), nn.Dropout(0.3),
        )
        self.value_head = nn.Sequential(nn.Linear(hidden[1], hidden[1]), nn.ReLU(), nn.Linear(hidden[1], 1), nn.Tanh())
        self.policy_head = nn.Sequential(
            nn.Linear(hidden[1], hidden[1]),
            nn.ReLU(),
            nn.Linear(hidden[1], BOARD_M * BOARD_N),
        )

    def forward(self, x):
        if x.dim() == 3:
            x = x.unsqueeze(0)
        h = self.trunk(x)
        return {"value": self.value_head(h), "policy": self.policy_head(h).reshape(-1, BOARD_M, BOARD_N)}

    def alphaloss(self, y, mcts_value, mcts_policy):
        value_loss = nn.MSELoss()(y["value"].reshape(-1), mcts_value)
        policy = y["policy"].reshape(-1, BOARD_M * BOARD_N)
        policy_loss = nn.CrossEntropyLoss()(policy, mcts_policy.reshape(-1, BOARD_M * BOARD_N))
        return value_loss + policy_loss
