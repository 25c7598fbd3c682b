import torch
from torch import nn


class GRUModel(nn.Module):
    def __init__(self, input_size, hidden_size, layn, bias=True):
        super().__init__()
        self.hidden_size = hidden_size
        self.x2h = []  # expect: TCK601
        self.h2h = []  # expect: TCK601
        for x in range(layn):
            temp1 = nn.Linear(input_size, 3 * hidden_size, bias=bias)
            temp2 = nn.Linear(hidden_size, 3 * hidden_size, bias=bias).to("cuda:0")
            self.x2h.append(temp1)
            self.h2h.append(temp2)
            input_size = hidden_size

    def forward(self, x, hidden):
        for x2h, h2h in zip(self.x2h, self.h2h):
            gate_x = x2h(x)
            gate_h = h2h(hidden)
            i_r, i_i, i_n = gate_x.chunk(3, 1)
            h_r, h_i, h_n = gate_h.chunk(3, 1)
            resetgate = torch.sigmoid(i_r + h_r)
            inputgate = torch.sigmoid(i_i + h_i)
            newgate = torch.tanh(i_n + resetgate * h_n)
            hidden = newgate + inputgate * (hidden - newgate)
            x = hidden
        return hidden
