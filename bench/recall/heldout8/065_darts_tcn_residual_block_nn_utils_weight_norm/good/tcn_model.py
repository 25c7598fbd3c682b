import torch.nn.functional as F
from torch import nn


class _ResidualBlock(nn.Module):
    def __init__(self, num_filters, kernel_size, dilation_base, dropout, weight_norm, nr_blocks_below, num_layers, input_size, target_size):
        super().__init__()
        self.dilation_base = dilation_base
        self.kernel_size = kernel_size
        self.dropout_fn = nn.Dropout(dropout)
        self.num_layers = num_layers
        self.nr_blocks_below = nr_blocks_below
        input_dim = input_size if nr_blocks_below == 0 else num_filters
        output_dim = target_size if nr_blocks_below == num_layers - 1 else num_filters
        self.conv1 = nn.Conv1d(input_dim, num_filters, kernel_size, dilation=dilation_base ** nr_blocks_below)
        self.conv2 = nn.Conv1d(num_filters, output_dim, kernel_size, dilation=dilation_base ** nr_blocks_below)
        if weight_norm:
            self.conv1, self.conv2 = (
                nn.utils.parametrizations.weight_norm(self.conv1),
                nn.utils.parametrizations.weight_norm(self.conv2),
            )
        if input_dim != output_dim:
            self.conv3 = nn.Conv1d(input_dim, output_dim, 1)

    def forward(self, x):
        residual = x
        left_padding = (self.dilation_base ** self.nr_blocks_below) * (self.kernel_size - 1)
        x = F.pad(x, (left_padding, 0))
        x = self.dropout_fn(F.relu(self.conv1(x)))
        x = F.pad(x, (left_padding, 0))
        x = self.conv2(x)
        if self.nr_blocks_below < self.num_layers - 1:
            x = F.relu(x)
        x = self.dropout_fn(x)
        if self.conv1.in_channels != self.conv2.out_channels:
            residual = self.conv3(residual)
        return x + residual
