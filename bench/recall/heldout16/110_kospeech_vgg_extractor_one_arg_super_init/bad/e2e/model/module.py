import torch
import torch.nn as nn


class MaskCNN(nn.Module):
    """Runs a CNN over padded spectrograms and tracks the valid lengths through its layers."""

    def __init__(self, sequential):
        super(MaskCNN, self).__init__()
        self.sequential = sequential

    def forward(self, inputs, seq_lengths):
        output = inputs
        for module in self.sequential:
            output = module(output)
            if isinstance(module, nn.MaxPool2d):
                seq_lengths = seq_lengths >> 1
        return output, seq_lengths.int()


class VGGExtractor(nn.Module):
    """VGG extractor for end-to-end speech recognition (Hori et al., 2017)."""

    def __init__(self, in_channel=1):  # expect: TCK603
        super(VGGExtractor).__init__()
        self.extractor = MaskCNN(
            nn.Sequential(
                nn.Conv2d(in_channel, 64, kernel_size=3, stride=1, padding=1, bias=False),
                nn.Hardtanh(0, 20, inplace=True),
                nn.BatchNorm2d(num_features=64),
                nn.Conv2d(64, 64, kernel_size=3, stride=1, padding=1, bias=False),
                nn.Hardtanh(0, 20, inplace=True),
                nn.MaxPool2d(2, stride=2),
                nn.BatchNorm2d(num_features=64),
                nn.Conv2d(64, 128, kernel_size=3, stride=1, padding=1, bias=False),
                nn.Hardtanh(0, 20, inplace=True),
                nn.BatchNorm2d(num_features=128),
                nn.Conv2d(128, 128, kernel_size=3, stride=1, padding=1, bias=False),
                nn.Hardtanh(0, 20, inplace=True),
                nn.MaxPool2d(2, stride=2),
            )
        )

    def forward(self, inputs, input_lengths):
        return self.extractor(inputs, input_lengths)
