import torch
from torch import nn
from torch.nn.functional import dropout2d, interpolate


class SalEMA(nn.Module):
    def __init__(self, alpha=0.1, ema_loc=30, residual=False, dropout=True):
        super().__init__()
        self.dropout = dropout
        self.residual = residual
        self.ema_loc = ema_loc
        self.alpha = nn.Parameter(torch.tensor([alpha]))
        self.encoder = nn.Sequential(nn.Conv2d(3, 64, 3, padding=1), nn.ReLU(), nn.Conv2d(64, 512, 3, padding=1))
        self.decoder = nn.Sequential(nn.Conv2d(512, 64, 3, padding=1), nn.ReLU(), nn.Conv2d(64, 1, 1))

    def forward(self, input_, prev_state=None):
        x = self.encoder(input_)
        if self.dropout is True:
            x = dropout2d(x, training=self.training)
        if prev_state is None:
            current_state = x
        else:
            current_state = torch.sigmoid(self.alpha) * x + (1 - torch.sigmoid(self.alpha)) * prev_state
        x = self.decoder(current_state)
        x = interpolate(x, size=input_.shape[-2:], mode="bilinear", align_corners=False)
        return current_state, torch.sigmoid(x)
