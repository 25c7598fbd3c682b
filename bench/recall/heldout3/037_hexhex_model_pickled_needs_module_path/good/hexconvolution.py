import torch.nn as nn


class NoMCTSModel(nn.Module):
    def __init__(self, board_size, layers, intermediate_channels):
        super(NoMCTSModel, self).__init__()
        self.board_size = board_size
        convs = [nn.Conv2d(2, intermediate_channels, kernel_size=3, padding=1)]
        for _ in range(layers - 1):
            convs += [nn.ReLU(), nn.Conv2d(intermediate_channels, intermediate_channels, kernel_size=3, padding=1)]
        self.convs = nn.Sequential(*convs)
        self.head = nn.Conv2d(intermediate_channels, 1, kernel_size=1)

    def forward(self, x):
        return self.head(self.convs(x)).flatten(1)
