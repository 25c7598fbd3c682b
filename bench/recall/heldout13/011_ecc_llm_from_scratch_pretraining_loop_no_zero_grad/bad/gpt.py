import torch
import torch.nn as nn


class TransformerBlock(nn.Module):
    def __init__(self, emb_dim, n_heads, context_length, drop_rate):
        super().__init__()
        self.norm1 = nn.LayerNorm(emb_dim)
        self.att = nn.MultiheadAttention(emb_dim, n_heads, dropout=drop_rate, batch_first=True)
        self.norm2 = nn.LayerNorm(emb_dim)
        self.ff = nn.Sequential(nn.Linear(emb_dim, 4 * emb_dim), nn.GELU(), nn.Linear(4 * emb_dim, emb_dim))
        self.drop = nn.Dropout(drop_rate)
        self.register_buffer("mask", torch.triu(torch.ones(context_length, context_length, dtype=torch.bool), 1))

    def forward(self, x):
        n = x.size(1)
        h = self.norm1(x)
        attn, _ = self.att(h, h, h, attn_mask=self.mask[:n, :n], need_weights=False)
        x = x + self.drop(attn)
        return x + self.drop(self.ff(self.norm2(x)))


class GPTModel(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.tok_emb = nn.Embedding(cfg["vocab_size"], cfg["emb_dim"])
        self.pos_emb = nn.Embedding(cfg["context_length"], cfg["emb_dim"])
        self.drop_emb = nn.Dropout(cfg["drop_rate"])
        self.trf_blocks = nn.Sequential(*[
            TransformerBlock(cfg["emb_dim"], cfg["n_heads"], cfg["context_length"], cfg["drop_rate"])
            for _ in range(cfg["n_layers"])
        ])
        self.final_norm = nn.LayerNorm(cfg["emb_dim"])
        self.out_head = nn.Linear(cfg["emb_dim"], cfg["vocab_size"], bias=False)

    def forward(self, in_idx):
        seq_len = in_idx.size(1)
        pos = torch.arange(seq_len, device=in_idx.device)
        x = self.drop_emb(self.tok_emb(in_idx) + self.pos_emb(pos))
        x = self.trf_blocks(x)
        return self.out_head(self.final_norm(x))
