"""CNN regressing mean ribosome load from 50-nt 5' UTR sequences (a selene model file).

selene's training runner imports this module and calls `UTRModel(...)`, `criterion()` and
`get_optimizer(lr)`.
"""

import numpy
import torch
import torch.nn as nn


class UTRModel(nn.Module):
    def __init__(self, sequence_length=50, n_targets=1):
        super().__init__()
        self.sequence_length = sequence_length
        kernel_size, n_filters, nodes, padding = 9, 120, 40, 4
        self.cnn = nn.Sequential(
            nn.Conv1d(4, n_filters, kernel_size=kernel_size, padding=padding),
            nn.ReLU(inplace=True),
            nn.Conv1d(n_filters, n_filters, kernel_size=kernel_size, padding=padding),
            nn.ReLU(inplace=True),
            nn.Conv1d(n_filters, n_filters, kernel_size=kernel_size, padding=padding),
            nn.ReLU(inplace=True),
        )
        with torch.no_grad():
            dnn_input_size = self.cnn(torch.zeros(1, 4, self.sequence_length)).view(1, -1).shape[1]
        self.dnn = nn.Sequential(
            nn.Linear(dnn_input_size, nodes), nn.ReLU(inplace=True), nn.Dropout(0.20), nn.Linear(nodes, n_targets)
        )

        def init_weight(x):
            if isinstance(x, (nn.Linear, nn.Conv1d)):
                if isinstance(x, nn.Linear):
                    fan_avg = (x.in_features + x.out_features) * 0.5
                else:
                    fan_avg = (x.weight.shape[0] + x.weight.shape[1]) * x.weight.shape[2] * 0.5
                limit = numpy.sqrt(3 / fan_avg)
                nn.init.uniform_(x.weight, -1 * limit, limit)
                nn.init.zeros_(x.bias)

        self.cnn.apply(init_weight)
        self.dnn.apply(init_weight)

    def forward(self, input):
        batch_size = input.shape[0]
        return self.dnn(self.cnn(input).view(batch_size, -1))


def criterion():
    """The loss function to be optimized."""
    return nn.MSELoss(size_average=True, reduce=True)  # expect: TCK916


def get_optimizer(lr):
    """The optimizer class and its keyword arguments."""
    return (torch.optim.Adam, {"lr": lr, "betas": (0.9, 0.999), "eps": 1e-08})
