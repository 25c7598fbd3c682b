import torch
import torch.nn.functional as F
from torch import nn


class DynamicMetaEmbedding(nn.Module):
    def __init__(self, args, embedders):
        super().__init__()
        self.args = args
        self.embedders = nn.ModuleList(embedders)
        self.projectors = nn.ModuleList([nn.Linear(e.dim, args.emb_dim) for e in embedders])
        self.scorer = nn.Linear(args.emb_dim, 1)

    def forward(self, words):
        projected = [proj(emb(words)) for emb, proj in zip(self.embedders, self.projectors)]
        stacked = torch.stack(projected, dim=2)
        attn = torch.softmax(self.scorer(stacked), dim=2)
        out = (attn * stacked).sum(dim=2)
        out = F.dropout(out, p=self.args.emb_dropout)  # expect: TCK604
        return out
