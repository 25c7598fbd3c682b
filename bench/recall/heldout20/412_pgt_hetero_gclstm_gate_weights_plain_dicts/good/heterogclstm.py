import torch
import torch.nn as nn
from torch.nn import Parameter
from torch_geometric.nn import HeteroConv, SAGEConv
from torch_geometric.nn.inits import glorot


class HeteroGCLSTM(torch.nn.Module):
    """Graph-convolutional LSTM cell for heterogeneous graphs (one weight set per node type)."""

    def __init__(self, in_channels_dict: dict, out_channels: int, metadata: tuple, bias: bool = True):
        super(HeteroGCLSTM, self).__init__()
        self.in_channels_dict = in_channels_dict
        self.out_channels = out_channels
        self.metadata = metadata
        self.bias = bias
        self._create_parameters_and_layers()
        self._set_parameters()

    def _hetero_conv(self):
        return HeteroConv({edge_type: SAGEConv(in_channels=(-1, -1), out_channels=self.out_channels, bias=self.bias)
                           for edge_type in self.metadata[1]})

    def _create_input_gate_parameters_and_layers(self):
        self.conv_i = self._hetero_conv()
        self.W_i = nn.ParameterDict({t: Parameter(torch.Tensor(c, self.out_channels)) for t, c in self.in_channels_dict.items()})
        self.b_i = nn.ParameterDict({t: Parameter(torch.Tensor(1, self.out_channels)) for t in self.in_channels_dict})

    def _create_forget_gate_parameters_and_layers(self):
        self.conv_f = self._hetero_conv()
        self.W_f = nn.ParameterDict({t: Parameter(torch.Tensor(c, self.out_channels)) for t, c in self.in_channels_dict.items()})
        self.b_f = nn.ParameterDict({t: Parameter(torch.Tensor(1, self.out_channels)) for t in self.in_channels_dict})

    def _create_cell_state_parameters_and_layers(self):
        self.conv_c = self._hetero_conv()
        self.W_c = nn.ParameterDict({t: Parameter(torch.Tensor(c, self.out_channels)) for t, c in self.in_channels_dict.items()})
        self.b_c = nn.ParameterDict({t: Parameter(torch.Tensor(1, self.out_channels)) for t in self.in_channels_dict})

    def _create_output_gate_parameters_and_layers(self):
        self.conv_o = self._hetero_conv()
        self.W_o = nn.ParameterDict({t: Parameter(torch.Tensor(c, self.out_channels)) for t, c in self.in_channels_dict.items()})
        self.b_o = nn.ParameterDict({t: Parameter(torch.Tensor(1, self.out_channels)) for t in self.in_channels_dict})

    def _create_parameters_and_layers(self):
        self._create_input_gate_parameters_and_layers()
        self._create_forget_gate_parameters_and_layers()
        self._create_cell_state_parameters_and_layers()
        self._create_output_gate_parameters_and_layers()

    def _set_parameters(self):
        for weights in (self.W_i, self.W_f, self.W_c, self.W_o, self.b_i, self.b_f, self.b_c, self.b_o):
            for key in weights:
                glorot(weights[key])

    def _gate(self, conv, W, b, x_dict, edge_index_dict, h_dict):
        conv_out = conv(h_dict, edge_index_dict)
        return {t: torch.matmul(X, W[t]) + conv_out[t] + b[t] for t, X in x_dict.items()}

    def forward(self, x_dict, edge_index_dict, h_dict=None, c_dict=None):
        if h_dict is None:
            h_dict = {t: torch.zeros(X.shape[0], self.out_channels, device=X.device) for t, X in x_dict.items()}
        if c_dict is None:
            c_dict = {t: torch.zeros(X.shape[0], self.out_channels, device=X.device) for t, X in x_dict.items()}
        i = {t: torch.sigmoid(v) for t, v in self._gate(self.conv_i, self.W_i, self.b_i, x_dict, edge_index_dict, h_dict).items()}
        f = {t: torch.sigmoid(v) for t, v in self._gate(self.conv_f, self.W_f, self.b_f, x_dict, edge_index_dict, h_dict).items()}
        g = {t: torch.tanh(v) for t, v in self._gate(self.conv_c, self.W_c, self.b_c, x_dict, edge_index_dict, h_dict).items()}
        c_dict = {t: f[t] * C + i[t] * g[t] for t, C in c_dict.items()}
        o = {t: torch.sigmoid(v) for t, v in self._gate(self.conv_o, self.W_o, self.b_o, x_dict, edge_index_dict, h_dict).items()}
        h_dict = {t: o[t] * torch.tanh(C) for t, C in c_dict.items()}
        return h_dict, c_dict
