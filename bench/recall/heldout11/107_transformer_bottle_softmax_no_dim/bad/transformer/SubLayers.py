import torch
import torch.nn as nn

from transformer.Modules import ScaledDotProductAttention


class MultiHeadAttention(nn.Module):
    def __init__(self, n_head, d_model, d_k, d_v, dropout=0.1):
        super(MultiHeadAttention, self).__init__()
        self.n_head, self.d_k, self.d_v = n_head, d_k, d_v
        self.w_qs = nn.Parameter(torch.empty(n_head, d_model, d_k))
        self.w_ks = nn.Parameter(torch.empty(n_head, d_model, d_k))
        self.w_vs = nn.Parameter(torch.empty(n_head, d_model, d_v))
        self.attention = ScaledDotProductAttention(d_model)
        self.layer_norm = nn.LayerNorm(d_model)
        self.proj = nn.Linear(n_head * d_v, d_model)
        self.dropout = nn.Dropout(dropout)
        for w in (self.w_qs, self.w_ks, self.w_vs):
            nn.init.xavier_normal_(w)

    def forward(self, q, k, v, attn_mask=None):
        n_head, d_k, d_v = self.n_head, self.d_k, self.d_v
        residual = q
        mb_size, len_q, d_model = q.size()
        len_k, len_v = k.size(1), v.size(1)

        q_s = q.repeat(n_head, 1, 1).view(n_head, -1, d_model)
        k_s = k.repeat(n_head, 1, 1).view(n_head, -1, d_model)
        v_s = v.repeat(n_head, 1, 1).view(n_head, -1, d_model)
        q_s = torch.bmm(q_s, self.w_qs).view(-1, len_q, d_k)
        k_s = torch.bmm(k_s, self.w_ks).view(-1, len_k, d_k)
        v_s = torch.bmm(v_s, self.w_vs).view(-1, len_v, d_v)

        if attn_mask is not None:
            attn_mask = attn_mask.repeat(n_head, 1, 1)
        outputs, attns = self.attention(q_s, k_s, v_s, attn_mask=attn_mask)
        outputs = torch.cat(torch.split(outputs, mb_size, dim=0), dim=-1)
        outputs = self.dropout(self.proj(outputs))
        return self.layer_norm(outputs + residual), attns
