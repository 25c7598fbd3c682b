from torch import nn

from tslib_base import TslibBaseModel


class DLinear(TslibBaseModel):
    """Decomposition-linear forecaster: trend and seasonal parts each get a linear map."""

    def __init__(self, context_length, prediction_length, n_features, moving_avg=25):
        super().__init__(context_length, prediction_length)
        self.moving_avg = moving_avg
        self.n_features = n_features
        self._init_network()
        self.apply(self._weight_init)

    def _weight_init(self, m: nn.Module):
        if isinstance(m, nn.Linear):
            nn.init.constant_(m.weight.data, 1.0 / self.context_length)
            if m.bias is not None:
                nn.init.constant_(m.bias.data, 0.0)

    def _init_network(self):
        self.decomposition = nn.AvgPool1d(self.moving_avg, stride=1, padding=self.moving_avg // 2, count_include_pad=False)
        self.linear_seasonal = nn.Linear(self.context_length, self.prediction_length)
        self.linear_trend = nn.Linear(self.context_length, self.prediction_length)

    def forward(self, x):
        trend = self.decomposition(x.transpose(1, 2))
        seasonal = x.transpose(1, 2) - trend
        out = self.linear_seasonal(seasonal) + self.linear_trend(trend)
        return out.transpose(1, 2)
