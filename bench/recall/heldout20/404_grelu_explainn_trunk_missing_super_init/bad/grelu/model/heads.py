from torch import nn


class ConvHead(nn.Module):
    def __init__(self, n_tasks: int, in_channels: int, dtype=None, device=None):
        super().__init__()
        self.n_tasks = n_tasks
        self.conv = nn.Conv1d(in_channels, n_tasks, kernel_size=1, dtype=dtype, device=device)

    def forward(self, x):
        return self.conv(x)
