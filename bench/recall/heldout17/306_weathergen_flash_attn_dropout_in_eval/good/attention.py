import torch
from flash_attn import flash_attn_func, flash_attn_varlen_func


class MultiSelfAttentionHead(torch.nn.Module):
    def __init__(self, dim_embed, num_heads, dropout_rate=0.0, softcap=0.0):
        super().__init__()
        self.num_heads = num_heads
        self.dim_head = dim_embed // num_heads
        self.softcap = softcap
        self.dropout_rate = dropout_rate
        self.lnorm = torch.nn.LayerNorm(dim_embed)
        self.proj_heads = torch.nn.Linear(dim_embed, 3 * dim_embed, bias=False)
        self.proj_out = torch.nn.Linear(dim_embed, dim_embed, bias=False)
        self.dropout = torch.nn.Dropout(p=dropout_rate) if dropout_rate > 0.0 else torch.nn.Identity()

    def forward(self, x):
        x_in = x
        x = self.lnorm(x)
        b, n, _ = x.shape
        qs, ks, vs = self.proj_heads(x).view(b, n, 3, self.num_heads, self.dim_head).unbind(dim=2)
        # flash_attn applies dropout whenever dropout_p > 0: switch it off in eval mode
        dropout_rate = self.dropout_rate if self.training else 0.0
        outs = flash_attn_func(qs, ks, vs, softcap=self.softcap, dropout_p=dropout_rate)
        return x_in + self.dropout(self.proj_out(outs.flatten(-2, -1)))


class MultiCrossAttentionHeadVarlen(torch.nn.Module):
    def __init__(self, dim_embed_q, dim_embed_kv, num_heads, dropout_rate=0.0, softcap=0.0):
        super().__init__()
        self.num_heads = num_heads
        self.dim_head = dim_embed_q // num_heads
        self.softcap = softcap
        self.dropout_rate = dropout_rate
        self.lnorm_q = torch.nn.LayerNorm(dim_embed_q)
        self.lnorm_kv = torch.nn.LayerNorm(dim_embed_kv)
        self.proj_q = torch.nn.Linear(dim_embed_q, dim_embed_q, bias=False)
        self.proj_kv = torch.nn.Linear(dim_embed_kv, 2 * dim_embed_q, bias=False)
        self.proj_out = torch.nn.Linear(dim_embed_q, dim_embed_q, bias=False)

    def forward(self, x_q, x_kv, q_lens, kv_lens):
        x_in = x_q
        qs = self.proj_q(self.lnorm_q(x_q)).view(-1, self.num_heads, self.dim_head)
        ks, vs = self.proj_kv(self.lnorm_kv(x_kv)).view(-1, 2, self.num_heads, self.dim_head).unbind(dim=1)
        cu_q = torch.nn.functional.pad(torch.cumsum(q_lens, 0, dtype=torch.int32), (1, 0))
        cu_kv = torch.nn.functional.pad(torch.cumsum(kv_lens, 0, dtype=torch.int32), (1, 0))
        max_q, max_kv = int(q_lens.max()), int(kv_lens.max())
        dropout_rate = self.dropout_rate if self.training else 0.0
        outs = flash_attn_varlen_func(qs, ks, vs, cu_q, cu_kv, max_q, max_kv, softcap=self.softcap, dropout_p=dropout_rate)
        return x_in + self.proj_out(outs.flatten(-2, -1))
