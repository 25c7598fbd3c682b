import math

import torch.nn.functional as F
from torch import nn


class Conv1DClassifier(nn.Module):
    def __init__(self, num_classes, encoder_out_channels=256, kernel_size=64, stride=64):
        super().__init__()
        n_layers = int(math.log2(encoder_out_channels))
        self.conv_layers = []  # expect: TCK601
        for layer_idx in range(n_layers):
            self.conv_layers.append(nn.Conv1d(2**layer_idx, 2 ** (layer_idx + 1), kernel_size, stride=stride))
        self.fc1 = nn.Linear(encoder_out_channels, 128)
        self.fc2 = nn.Linear(128, num_classes)

    def forward(self, x):
        for conv_layer in self.conv_layers:
            x = F.relu(conv_layer(x))
        return self.fc2(F.relu(self.fc1(x.flatten(1))))
