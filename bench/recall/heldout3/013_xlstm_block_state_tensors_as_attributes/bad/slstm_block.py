import torch
import torch.nn as nn


class sLSTMblock(nn.Module):
    def __init__(self, x_example, depth, dropout=0.2):
        super().__init__()
        self.input_size = x_example.shape[2]
        self.depth = depth
        self.ln = nn.LayerNorm(self.input_size)
        self.z_gate = nn.Linear(self.input_size, self.input_size)
        self.i_gate = nn.Linear(self.input_size, self.input_size)
        self.f_gate = nn.Linear(self.input_size, self.input_size)
        self.o_gate = nn.Linear(self.input_size, self.input_size)
        self.ct_1 = torch.zeros([1, 1, self.input_size], device=x_example.device)  # expect: TCK606
        self.nt_1 = torch.zeros([1, 1, self.input_size], device=x_example.device)  # expect: TCK606

    def forward(self, x):
        x = self.ln(x)
        z = torch.tanh(self.z_gate(x))
        i = torch.exp(self.i_gate(x))
        f = torch.sigmoid(self.f_gate(x))
        o = torch.sigmoid(self.o_gate(x))
        ct = f * self.ct_1 + i * z
        nt = f * self.nt_1 + i
        self.ct_1 = ct[:, -1:, :].detach()
        self.nt_1 = nt[:, -1:, :].detach()
        return o * (ct / nt)
