import torch
from torch import nn


class InputAttnEncoder(nn.Module):
    """Encoder with input attention over the driving series (DA-RNN, stage 1)."""

    def __init__(self, input_size, hidden_size, time_step):
        super().__init__()
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.time_step = time_step
        self.lstm = nn.LSTMCell(input_size, hidden_size)
        self.attn = nn.Linear(2 * hidden_size + time_step, 1)

    def forward(self, x):
        b = x.size(0)
        h = x.new_zeros(b, self.hidden_size)
        c = x.new_zeros(b, self.hidden_size)
        codes = []
        for t in range(self.time_step):
            hc = torch.cat([h, c], dim=1).unsqueeze(1).expand(-1, self.input_size, -1)
            e = self.attn(torch.cat([hc, x.permute(0, 2, 1)], dim=2)).squeeze(2)
            alpha = torch.softmax(e, dim=1)
            h, c = self.lstm(alpha * x[:, t, :], (h, c))
            codes.append(h)
        return torch.stack(codes, dim=1)


class TemporalAttnDecoder(nn.Module):
    """Decoder with temporal attention over the encoder states (DA-RNN, stage 2)."""

    def __init__(self, code_hidden_size, hidden_size, time_step):
        super().__init__()
        self.hidden_size = hidden_size
        self.time_step = time_step
        self.attn = nn.Sequential(nn.Linear(2 * hidden_size + code_hidden_size, code_hidden_size), nn.Tanh(), nn.Linear(code_hidden_size, 1))
        self.lstm = nn.LSTMCell(1, hidden_size)
        self.tilde = nn.Linear(code_hidden_size + 1, 1)
        self.out = nn.Linear(code_hidden_size + hidden_size, 1)

    def forward(self, codes, y_seq):
        b = codes.size(0)
        d = codes.new_zeros(b, self.hidden_size)
        s = codes.new_zeros(b, self.hidden_size)
        ctx = codes.new_zeros(b, codes.size(2))
        for t in range(self.time_step):
            ds = torch.cat([d, s], dim=1).unsqueeze(1).expand(-1, self.time_step, -1)
            beta = torch.softmax(self.attn(torch.cat([ds, codes], dim=2)).squeeze(2), dim=1)
            ctx = torch.bmm(beta.unsqueeze(1), codes).squeeze(1)
            y_tilde = self.tilde(torch.cat([ctx, y_seq[:, t].unsqueeze(1)], dim=1))
            d, s = self.lstm(y_tilde, (d, s))
        return self.out(torch.cat([d, ctx], dim=1)).squeeze(1)
