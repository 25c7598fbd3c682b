import torch
import torch.nn as nn

from attention import RoPEMHA


class ConformerLikeLayer(nn.Module):
    def __init__(self, d_model=256, nhead=4, d_ffn=1024, dropout=0.1):
        super().__init__()
        self.norm1 = nn.LayerNorm(d_model)
        self.attn = RoPEMHA(d_model, nhead, dropout=dropout)
        self.norm2 = nn.LayerNorm(d_model)
        self.ffn = nn.Sequential(
            nn.Linear(d_model, d_ffn), nn.SiLU(), nn.Dropout(dropout), nn.Linear(d_ffn, d_model)
        )

    def forward(self, x, pad_mask=None):
        x = x + self.attn(self.norm1(x), key_padding_mask=pad_mask)
        return x + self.ffn(self.norm2(x))


class Encoder(nn.Module):
    def __init__(self, n_feats=80, d_model=256, n_layers=6, n_tokens=500):
        super().__init__()
        self.proj = nn.Linear(n_feats, d_model)
        self.layers = nn.ModuleList(ConformerLikeLayer(d_model) for _ in range(n_layers))
        self.ctc_head = nn.Linear(d_model, n_tokens)

    def forward(self, feats, pad_mask=None):
        x = self.proj(feats)
        for layer in self.layers:
            x = layer(x, pad_mask)
        return self.ctc_head(x).log_softmax(-1)


@torch.no_grad()
def transcribe(model, feats):
    model.eval()
    return model(feats).argmax(-1)
