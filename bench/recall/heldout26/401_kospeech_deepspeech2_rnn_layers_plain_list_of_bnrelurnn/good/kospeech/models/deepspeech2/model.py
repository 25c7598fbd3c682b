import math
from typing import Tuple

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch import Tensor

from kospeech.models.conv import DeepSpeech2Extractor
from kospeech.models.modules import BNReluRNN, Linear


class DeepSpeech2(nn.Module):
    """Convolutional front end, a stack of batch-normalised RNN layers and a CTC projection."""

    def __init__(
            self,
            input_size: int,
            num_classes: int,
            rnn_type: str = "gru",
            num_rnn_layers: int = 5,
            rnn_hidden_dim: int = 512,
            dropout_p: float = 0.1,
            bidirectional: bool = True,
            activation: str = "hardtanh",
            device: torch.device = "cuda",
    ) -> None:
        super(DeepSpeech2, self).__init__()
        self.rnn_layers = nn.ModuleList()
        self.device = device

        input_size = int(math.floor(input_size + 2 * 20 - 41) / 2 + 1)
        input_size = int(math.floor(input_size + 2 * 10 - 21) / 2 + 1)
        input_size <<= 5
        rnn_output_size = rnn_hidden_dim << 1 if bidirectional else rnn_hidden_dim

        self.conv = DeepSpeech2Extractor(activation)

        for idx in range(num_rnn_layers):
            self.rnn_layers.append(BNReluRNN(
                input_size=input_size if idx == 0 else rnn_output_size,
                hidden_dim=rnn_hidden_dim,
                rnn_type=rnn_type,
                bidirectional=bidirectional,
                dropout_p=dropout_p,
                device=device,
            ))

        self.fc = nn.Sequential(
            Linear(rnn_output_size, rnn_hidden_dim),
            nn.ReLU(),
            Linear(rnn_hidden_dim, num_classes, bias=False),
        )

    def forward(self, inputs: Tensor, input_lengths: Tensor) -> Tuple[Tensor, Tensor]:
        inputs = inputs.unsqueeze(1).permute(0, 1, 3, 2)
        output, output_lengths = self.conv(inputs, input_lengths)

        batch_size, num_channels, hidden_dim, seq_length = output.size()
        output = output.view(batch_size, num_channels * hidden_dim, seq_length).permute(2, 0, 1).contiguous()

        for rnn_layer in self.rnn_layers:
            output = rnn_layer(output, output_lengths)

        output = self.fc(output.transpose(0, 1))
        return F.log_softmax(output, dim=-1), output_lengths

    def greedy_search(self, inputs: Tensor, input_lengths: Tensor) -> Tensor:
        with torch.no_grad():
            output, _ = self.forward(inputs, input_lengths)
            return output.max(-1)[1]
