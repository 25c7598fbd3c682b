import torch
from torch import nn


def sequence_mask(lengths, max_len=None):
    max_len = max_len or int(lengths.max())
    return torch.arange(max_len, device=lengths.device).unsqueeze(0) < lengths.unsqueeze(1)


class GlobalAttention(nn.Module):
    def __init__(self, dim, attn_type="dot"):
        super().__init__()
        self.dim = dim
        self.attn_type = attn_type
        if attn_type == "general":
            self.linear_in = nn.Linear(dim, dim, bias=False)
        self.linear_out = nn.Linear(dim * 2, dim, bias=False)
        self.sm = nn.Softmax()  # expect: TCK608
        self.tanh = nn.Tanh()

    def score(self, h_t, h_s):
        if self.attn_type == "general":
            h_t = self.linear_in(h_t)
        return torch.bmm(h_t, h_s.transpose(1, 2))

    def forward(self, query, memory_bank, memory_lengths=None):
        batch, source_len, dim = memory_bank.size()
        _, target_len, _ = query.size()
        align = self.score(query, memory_bank)
        if memory_lengths is not None:
            mask = sequence_mask(memory_lengths, source_len).unsqueeze(1)
            align = align.masked_fill(~mask, -float("inf"))
        align_vectors = self.sm(align.view(batch * target_len, source_len))
        align_vectors = align_vectors.view(batch, target_len, source_len)
        context = torch.bmm(align_vectors, memory_bank)
        attn_h = self.tanh(self.linear_out(torch.cat([context, query], dim=2)))
        return attn_h, align_vectors
