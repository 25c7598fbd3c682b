import torch
import torch.nn as nn


class GlobalAttention(nn.Module):
    """Luong-style attention over the encoder memory bank."""

    def __init__(self, dim, attn_type="general"):
        super().__init__()
        self.dim = dim
        self.attn_type = attn_type
        if attn_type == "general":
            self.linear_in = nn.Linear(dim, dim, bias=False)
        self.linear_out = nn.Linear(dim * 2, dim, bias=False)
        self.sm = nn.Softmax(dim=-1)
        self.tanh = nn.Tanh()

    def score(self, h_t, h_s):
        if self.attn_type == "general":
            h_t = self.linear_in(h_t)
        return torch.bmm(h_t, h_s.transpose(1, 2))

    def forward(self, source, memory_bank, memory_mask=None):
        batch, target_l, dim = source.size()
        source_l = memory_bank.size(1)
        align = self.score(source, memory_bank)
        if memory_mask is not None:
            align = align.masked_fill(~memory_mask.unsqueeze(1), float("-inf"))
        align_vectors = self.sm(align.view(batch * target_l, source_l))
        align_vectors = align_vectors.view(batch, target_l, source_l)
        context = torch.bmm(align_vectors, memory_bank)
        attn_h = self.tanh(self.linear_out(torch.cat([context, source], dim=2)))
        return attn_h, align_vectors
