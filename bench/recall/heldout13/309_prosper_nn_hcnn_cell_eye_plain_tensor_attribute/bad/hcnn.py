import torch
from torch import nn

from hcnn_cell import HCNNCell


class HCNN(nn.Module):
    def __init__(self, n_state_neurons, n_features_Y, past_horizon, forecast_horizon, teacher_forcing=1.0):
        super().__init__()
        self.n_features_Y = n_features_Y
        self.past_horizon = past_horizon
        self.forecast_horizon = forecast_horizon
        self.init_state = nn.Parameter(torch.randn(1, n_state_neurons))
        self.cell = HCNNCell(n_state_neurons, n_features_Y, teacher_forcing)

    def forward(self, Y):
        batchsize = Y.shape[1]
        state = self.init_state.repeat(batchsize, 1)
        past_error, forecast = [], []
        for t in range(self.past_horizon):
            state, err = self.cell(state, Y[t])
            past_error.append(err)
        for _ in range(self.forecast_horizon):
            state, out = self.cell(state)
            forecast.append(out)
        return torch.stack(past_error), torch.stack(forecast)
