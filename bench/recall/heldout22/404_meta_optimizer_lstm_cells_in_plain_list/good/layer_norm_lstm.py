import torch
import torch.nn as nn

from layer_norm import LayerNorm1D


class LayerNormLSTMCell(nn.Module):
    def __init__(self, num_inputs, num_hidden, forget_gate_bias=-1):
        super(LayerNormLSTMCell, self).__init__()
        self.forget_gate_bias = forget_gate_bias
        self.num_hidden = num_hidden
        self.fc_i2h = nn.Linear(num_inputs, 4 * num_hidden)
        self.fc_h2h = nn.Linear(num_hidden, 4 * num_hidden)
        self.ln_i2h = LayerNorm1D(4 * num_hidden)
        self.ln_h2h = LayerNorm1D(4 * num_hidden)
        self.ln_h2o = LayerNorm1D(num_hidden)

    def forward(self, inputs, state):
        hx, cx = state
        gates = (self.ln_i2h(self.fc_i2h(inputs)) + self.ln_h2h(self.fc_h2h(hx))).split(self.num_hidden, 1)
        in_gate = torch.sigmoid(gates[0])
        forget_gate = torch.sigmoid(gates[1] + self.forget_gate_bias)
        out_gate = torch.sigmoid(gates[2])
        in_transform = torch.tanh(gates[3])
        cx = forget_gate * cx + in_gate * in_transform
        hx = out_gate * torch.tanh(self.ln_h2o(cx))
        return hx, cx
