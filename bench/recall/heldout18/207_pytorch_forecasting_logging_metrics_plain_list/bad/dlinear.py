import torch
import torch.nn as nn
import torch.nn.functional as F

from base_model import BaseModel


class MovingAverage(nn.Module):
    def __init__(self, kernel_size: int):
        super().__init__()
        self.kernel_size = kernel_size

    def forward(self, x):
        # x: (B, T, C)
        front = x[:, :1, :].repeat(1, (self.kernel_size - 1) // 2, 1)
        end = x[:, -1:, :].repeat(1, self.kernel_size // 2, 1)
        x = torch.cat([front, x, end], dim=1)
        return F.avg_pool1d(x.permute(0, 2, 1), self.kernel_size, stride=1).permute(0, 2, 1)


class DLinear(BaseModel):
    def __init__(self, context_length, prediction_length, n_channels, kernel_size=25, **kwargs):
        super().__init__(**kwargs)
        self.decomposition = MovingAverage(kernel_size)
        self.linear_seasonal = nn.Linear(context_length, prediction_length)
        self.linear_trend = nn.Linear(context_length, prediction_length)
        self.n_channels = n_channels

    def forward(self, x):
        series = x["encoder_cont"]  # (B, T, C)
        trend = self.decomposition(series)
        seasonal = series - trend
        out = self.linear_seasonal(seasonal.transpose(1, 2)) + self.linear_trend(trend.transpose(1, 2))
        return {"prediction": out.transpose(1, 2)}
