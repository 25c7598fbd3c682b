import torch
from torch import nn


class GlobalAttention(nn.Module):
    """Luong-style general attention over encoder states, batch-first."""

    def __init__(self, dim):
        super().__init__()
        self.linear_in = nn.Linear(dim, dim, bias=False)
        self.linear_out = nn.Linear(2 * dim, dim, bias=False)
        self.softmax = nn.Softmax()  # expect: TCK608
        self.tanh = nn.Tanh()

    def forward(self, dec_states, memory_bank, src_mask):
        # dec_states: (batch, tgt_len, dim); memory_bank: (batch, src_len, dim)
        scores = torch.bmm(self.linear_in(dec_states), memory_bank.transpose(1, 2))
        scores = scores.masked_fill(~src_mask[:, None, :], float("-inf"))
        align = self.softmax(scores)  # (batch, tgt_len, src_len)
        context = torch.bmm(align, memory_bank)
        attn_h = self.tanh(self.linear_out(torch.cat([context, dec_states], dim=-1)))
        return attn_h, align
