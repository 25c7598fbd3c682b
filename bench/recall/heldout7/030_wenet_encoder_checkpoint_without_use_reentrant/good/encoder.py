import torch
import torch.nn as nn
import torch.utils.checkpoint as ckpt


class EncoderLayer(nn.Module):
    def __init__(self, size, n_heads, ff_dim, dropout=0.1):
        super().__init__()
        self.attn = nn.MultiheadAttention(size, n_heads, dropout=dropout, batch_first=True)
        self.ff = nn.Sequential(nn.Linear(size, ff_dim), nn.ReLU(), nn.Linear(ff_dim, size))
        self.norm1 = nn.LayerNorm(size)
        self.norm2 = nn.LayerNorm(size)

    def forward(self, xs, chunk_masks, pos_emb, mask_pad):
        h = self.norm1(xs + pos_emb)
        attn, _ = self.attn(h, h, h, key_padding_mask=mask_pad)
        xs = xs + attn
        xs = xs + self.ff(self.norm2(xs))
        return xs, chunk_masks, None, None


class TransformerEncoder(nn.Module):
    def __init__(self, size=256, n_heads=4, ff_dim=1024, num_blocks=6, gradient_checkpointing=False):
        super().__init__()
        self.encoders = nn.ModuleList([EncoderLayer(size, n_heads, ff_dim) for _ in range(num_blocks)])
        self.gradient_checkpointing = gradient_checkpointing

    def forward_layers(self, xs, chunk_masks, pos_emb, mask_pad):
        for layer in self.encoders:
            xs, chunk_masks, _, _ = layer(xs, chunk_masks, pos_emb, mask_pad)
        return xs

    @torch.jit.unused
    def forward_layers_checkpointed(self, xs, chunk_masks, pos_emb, mask_pad):
        for layer in self.encoders:
            xs, chunk_masks, _, _ = ckpt.checkpoint(layer.__call__, xs, chunk_masks, pos_emb, mask_pad, use_reentrant=False)
        return xs

    def forward(self, xs, chunk_masks, pos_emb, mask_pad):
        if self.gradient_checkpointing and self.training:
            return self.forward_layers_checkpointed(xs, chunk_masks, pos_emb, mask_pad)
        return self.forward_layers(xs, chunk_masks, pos_emb, mask_pad)
