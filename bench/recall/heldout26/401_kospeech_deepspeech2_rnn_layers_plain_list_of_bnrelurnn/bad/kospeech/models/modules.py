import torch
import torch.nn as nn
import torch.nn.functional as F
from torch import Tensor


class BaseRNN(nn.Module):
    """Wraps one of the torch recurrent layers; subclasses add the forward pass."""

    supported_rnns = {"lstm": nn.LSTM, "gru": nn.GRU, "rnn": nn.RNN}

    def __init__(self, input_size: int, hidden_dim: int = 512, num_layers: int = 1,
                 rnn_type: str = "lstm", dropout_p: float = 0.3, bidirectional: bool = True,
                 device: torch.device = "cuda") -> None:
        super(BaseRNN, self).__init__()
        cell = self.supported_rnns[rnn_type]
        self.rnn = cell(input_size, hidden_dim, num_layers, True, True, dropout_p, bidirectional)
        self.hidden_dim = hidden_dim
        self.device = device

    def forward(self, *args, **kwargs):
        raise NotImplementedError


class BNReluRNN(BaseRNN):
    """Batch norm and ReLU on the features, then one recurrent layer over the packed sequence."""

    def __init__(self, input_size: int, hidden_dim: int = 512, rnn_type: str = "gru",
                 bidirectional: bool = True, dropout_p: float = 0.1,
                 device: torch.device = "cuda") -> None:
        super(BNReluRNN, self).__init__(input_size=input_size, hidden_dim=hidden_dim, num_layers=1,
                                        rnn_type=rnn_type, dropout_p=dropout_p,
                                        bidirectional=bidirectional, device=device)
        self.batch_norm = nn.BatchNorm1d(input_size)

    def forward(self, inputs: Tensor, input_lengths: Tensor) -> Tensor:
        total_length = inputs.size(0)
        inputs = F.relu(self.batch_norm(inputs.transpose(1, 2))).transpose(1, 2)
        packed = nn.utils.rnn.pack_padded_sequence(inputs, input_lengths.cpu())
        packed, _ = self.rnn(packed)
        output, _ = nn.utils.rnn.pad_packed_sequence(packed, total_length=total_length)
        return output


class Linear(nn.Module):
    """nn.Linear with Xavier-initialised weights."""

    def __init__(self, in_features: int, out_features: int, bias: bool = True) -> None:
        super(Linear, self).__init__()
        self.linear = nn.Linear(in_features, out_features, bias=bias)
        nn.init.xavier_uniform_(self.linear.weight)
        if bias:
            nn.init.zeros_(self.linear.bias)

    def forward(self, x: Tensor) -> Tensor:
        return self.linear(x)
