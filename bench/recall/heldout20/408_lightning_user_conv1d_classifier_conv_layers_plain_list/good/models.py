import math

import torch.nn as nn
import torch.nn.functional as F


class Conv1DClassifier(nn.Module):
    def __init__(self, num_classes, encoder_out_channels=256, encoder_kernel_size=64, encoder_stride=64):
        super(Conv1DClassifier, self).__init__()
        n_layers = int(math.log2(encoder_out_channels))
        self.conv_layers = nn.ModuleList()
        for layer_idx in range(n_layers):
            self.conv_layers.append(
                nn.Conv1d(
                    in_channels=2 ** layer_idx,
                    out_channels=2 ** (layer_idx + 1),
                    kernel_size=encoder_kernel_size,
                    stride=encoder_stride,
                    padding=encoder_kernel_size // 2,
                )
            )
        self.fc1 = nn.Linear(encoder_out_channels, 128)
        self.fc2 = nn.Linear(128, 64)
        self.fc3 = nn.Linear(64, num_classes)

    def forward(self, x):
        for conv_layer in self.conv_layers:
            x = F.relu(conv_layer(x))
        x = x.mean(dim=-1)
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        return self.fc3(x)
