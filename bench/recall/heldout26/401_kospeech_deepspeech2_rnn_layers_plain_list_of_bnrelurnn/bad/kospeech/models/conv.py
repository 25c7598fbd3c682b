from typing import Tuple

import torch.nn as nn
from torch import Tensor


class DeepSpeech2Extractor(nn.Module):
    """Two strided 2-D convolutions over the spectrogram, as in the DeepSpeech2 paper."""

    def __init__(self, activation: str = "hardtanh") -> None:
        super(DeepSpeech2Extractor, self).__init__()
        act = nn.Hardtanh(0, 20, inplace=True) if activation == "hardtanh" else nn.ReLU(inplace=True)
        self.conv = nn.Sequential(
            nn.Conv2d(1, 32, kernel_size=(41, 11), stride=(2, 2), padding=(20, 5), bias=False),
            nn.BatchNorm2d(32),
            act,
            nn.Conv2d(32, 32, kernel_size=(21, 11), stride=(2, 1), padding=(10, 5), bias=False),
            nn.BatchNorm2d(32),
            act,
        )

    def forward(self, inputs: Tensor, input_lengths: Tensor) -> Tuple[Tensor, Tensor]:
        outputs = self.conv(inputs)
        output_lengths = (input_lengths + 2 * 5 - 11) // 2 + 1
        return outputs, output_lengths
