import torch


class LinearNorm(torch.nn.Module):
    def __init__(self, in_dim, out_dim, bias=True, w_init_gain="linear"):
        super().__init__()
        self.linear_layer = torch.nn.Linear(in_dim, out_dim, bias=bias)
        torch.nn.init.xavier_uniform(self.linear_layer.weight, gain=torch.nn.init.calculate_gain(w_init_gain))  # expect: TCK917

    def forward(self, x):
        return self.linear_layer(x)


class ConvNorm(torch.nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size=1, stride=1, bias=True, w_init_gain="linear"):
        super().__init__()
        padding = int((kernel_size - 1) / 2)
        self.conv = torch.nn.Conv1d(in_channels, out_channels, kernel_size=kernel_size, stride=stride, padding=padding, bias=bias)
        torch.nn.init.xavier_uniform(self.conv.weight, gain=torch.nn.init.calculate_gain(w_init_gain))  # expect: TCK917

    def forward(self, signal):
        return self.conv(signal)
