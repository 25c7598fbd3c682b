import torch
from torch import nn


class MovingAvg(nn.Module):
    def __init__(self, kernel_size):
        super().__init__()
        self.kernel_size = kernel_size
        self.avg = nn.AvgPool1d(kernel_size=kernel_size, stride=1, padding=0)

    def forward(self, x):
        front = x[:, 0:1, :].repeat(1, (self.kernel_size - 1) // 2, 1)
        end = x[:, -1:, :].repeat(1, (self.kernel_size - 1) // 2, 1)
        x = torch.cat([front, x, end], dim=1)
        return self.avg(x.permute(0, 2, 1)).permute(0, 2, 1)


class SeriesDecomposition(nn.Module):
    def __init__(self, kernel_size):
        super().__init__()
        self.moving_avg = MovingAvg(kernel_size)

    def forward(self, x):
        trend = self.moving_avg(x)
        return x - trend, trend


class DLinear(nn.Module):
    def __init__(self, context_length, prediction_length, n_features, moving_avg=25, individual=False):
        super().__init__()
        self.context_length = context_length
        self.prediction_length = prediction_length
        self.n_features = n_features
        self.individual = individual
        self.decomposition = SeriesDecomposition(moving_avg)
        self._init_network()
        self.apply(self._weight_init)

    def _weight_init(self, m: nn.Module):
        if isinstance(m, nn.Linear):
            nn.init.constant_(m.weight.data, 1.0 / self.context_length)
            if m.bias is not None:
                nn.init.constant_(m.bias.data, 0.0)

    def _init_network(self):
        if self.individual:
            self.linear_seasonal = nn.ModuleList(
                [nn.Linear(self.context_length, self.prediction_length) for _ in range(self.n_features)]
            )
            self.linear_trend = nn.ModuleList(
                [nn.Linear(self.context_length, self.prediction_length) for _ in range(self.n_features)]
            )
        else:
            self.linear_seasonal = nn.Linear(self.context_length, self.prediction_length)
            self.linear_trend = nn.Linear(self.context_length, self.prediction_length)

    def forward(self, x):
        seasonal, trend = self.decomposition(x)
        seasonal, trend = seasonal.permute(0, 2, 1), trend.permute(0, 2, 1)
        if self.individual:
            seasonal_out = torch.stack([layer(seasonal[:, i]) for i, layer in enumerate(self.linear_seasonal)], dim=1)
            trend_out = torch.stack([layer(trend[:, i]) for i, layer in enumerate(self.linear_trend)], dim=1)
        else:
            seasonal_out = self.linear_seasonal(seasonal)
            trend_out = self.linear_trend(trend)
        return (seasonal_out + trend_out).permute(0, 2, 1)
