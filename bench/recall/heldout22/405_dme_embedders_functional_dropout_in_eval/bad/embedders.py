import math

import torch
import torch.nn as nn
import torch.nn.functional as F


def nn_init(module, method="xavier"):
    for name, p in module.named_parameters():
        if "bias" in name:
            nn.init.constant_(p, 0.0)
        elif method == "xavier":
            nn.init.xavier_uniform_(p)
        elif method == "orthogonal":
            nn.init.orthogonal_(p)


class SingleEmbedder(nn.Module):
    """One frozen pre-trained embedding table (fastText, GloVe, ...)."""

    def __init__(self, args, emb_size):
        super(SingleEmbedder, self).__init__()
        self.args = args
        self.embedder = nn.Embedding(len(args.vocab_stoi), emb_size, padding_idx=args.vocab_stoi["<pad>"])
        bound = math.sqrt(3.0 / emb_size)
        self.embedder.weight.data.uniform_(-bound, bound)
        self.embedder.weight.requires_grad = False

    def forward(self, x):
        return self.embedder(x)


class CatEmbedder(nn.Module):
    """Concatenates the embeddings of every source."""

    def __init__(self, args):
        super(CatEmbedder, self).__init__()
        self.args = args
        self.emb_sz = sum(dim for _, dim in args.embeds)
        self.emb_names = sorted(name for name, _ in args.embeds)
        self.embedders = nn.ModuleDict({name: SingleEmbedder(args, dim) for name, dim in args.embeds})

    def forward(self, words):
        out = torch.cat([self.embedders[name](words) for name in self.emb_names], -1)
        if self.args.nonlin == "relu":
            out = F.relu(out)
        if self.args.emb_dropout > 0.0:
            out = F.dropout(out, p=self.args.emb_dropout)  # expect: TCK604
        return out


class ProjSumEmbedder(nn.Module):
    """Dynamic meta-embeddings: project each source, then sum with (contextual) attention weights."""

    def __init__(self, args):
        super(ProjSumEmbedder, self).__init__()
        self.args = args
        self.n_emb = len(args.embeds)
        self.emb_sz = args.proj_embed_sz
        self.emb_names = sorted(name for name, _ in args.embeds)
        self.embedders = nn.ModuleDict()
        self.projectors = nn.ModuleDict()
        for name, dim in args.embeds:
            self.embedders[name] = SingleEmbedder(args, dim)
            self.projectors[name] = nn.Linear(dim, args.proj_embed_sz)
            nn_init(self.projectors[name], "xavier")

        self.attn_0, self.attn_1 = None, None
        if self.n_emb > 1 and args.attnnet != "none":
            if args.attnnet.startswith("dep_"):
                self.attn_0 = nn.LSTM(args.proj_embed_sz, 2, bidirectional=True)
                nn_init(self.attn_0, "orthogonal")
                self.attn_1 = nn.Linear(2 * 2, 1)
            else:
                self.attn_0 = nn.Linear(args.proj_embed_sz, 2)
                self.attn_1 = nn.Linear(2, 1)
            nn_init(self.attn_1, "xavier")

    def forward(self, words):
        projected = [self.projectors[name](self.embedders[name](words)) for name in self.emb_names]
        if self.attn_0 is None:
            out = sum(projected)
        else:
            stacked = torch.stack(projected, 2)  # seq x batch x n_emb x dim
            s_len, b_size, _, _ = stacked.size()
            if self.args.attnnet.startswith("dep_"):
                m_attn = self.attn_1(self.attn_0(stacked.view(s_len, b_size * self.n_emb, -1))[0])
                m_attn = m_attn.view(s_len, b_size, self.n_emb)
            else:
                m_attn = self.attn_1(self.attn_0(stacked)).squeeze(3)
            if self.args.attnnet.endswith("_gating"):
                m_attn = torch.sigmoid(m_attn)
            else:
                m_attn = F.softmax(m_attn, dim=2)
            out = (stacked * m_attn.unsqueeze(3)).sum(2)

        if self.args.nonlin == "relu":
            out = F.relu(out)
        if self.args.emb_dropout > 0.0:
            out = F.dropout(out, p=self.args.emb_dropout)  # expect: TCK604
        return out
