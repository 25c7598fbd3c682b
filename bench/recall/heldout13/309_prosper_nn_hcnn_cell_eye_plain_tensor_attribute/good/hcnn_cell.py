from typing import Optional

import torch
from torch import nn


class PartialTeacherForcing(nn.Dropout):
    """Dropout whose scaling is undone, so kept entries equal the observation."""

    def forward(self, input: torch.Tensor) -> torch.Tensor:
        if not self.training or self.p == 0:
            return input
        return (1 - self.p) * super().forward(input)


class HCNNCell(nn.Module):
    def __init__(self, n_state_neurons: int, n_features_Y: int, teacher_forcing: float = 1.0):
        super().__init__()
        self.n_state_neurons = n_state_neurons
        self.n_features_Y = n_features_Y
        self.A = nn.Linear(n_state_neurons, n_state_neurons, bias=False)
        # [1, 0]: reads the observed features out of the state
        self.eye = nn.Parameter(torch.eye(self.n_features_Y, self.n_state_neurons), requires_grad=False)
        self.ptf_dropout = PartialTeacherForcing(1 - teacher_forcing)

    def forward(self, state: torch.Tensor, observation: Optional[torch.Tensor] = None):
        expectation = torch.mm(state, self.eye.T)
        if observation is not None:
            output = expectation - observation
            teacher_forcing = torch.mm(self.ptf_dropout(output), self.eye)
            state = torch.tanh(state - teacher_forcing)
        else:
            output = expectation
            state = torch.tanh(state)
        return self.A(state), output
