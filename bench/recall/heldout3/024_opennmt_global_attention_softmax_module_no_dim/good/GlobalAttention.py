import torch
import torch.nn as nn


class GlobalAttention(nn.Module):
    def __init__(self, dim):
        super(GlobalAttention, self).__init__()
        self.linear_in = nn.Linear(dim, dim, bias=False)
        self.linear_out = nn.Linear(dim * 2, dim, bias=False)
        self.sm = nn.Softmax(dim=-1)
        self.tanh = nn.Tanh()

    def forward(self, input, context):
        batch, source_l, dim = context.size()
        target_l = input.size(1)
        align = torch.bmm(self.linear_in(input), context.transpose(1, 2))
        align_vectors = self.sm(align.view(batch * target_l, source_l))
        align_vectors = align_vectors.view(batch, target_l, source_l)
        c = torch.bmm(align_vectors, context)
        attn_h = self.tanh(self.linear_out(torch.cat([c, input], 2)))
        return attn_h, align_vectors
