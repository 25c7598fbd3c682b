import torch
import torch.nn as nn

from utils import MultiHeadAttentionBlock, PositionalEncoding


class EncoderLayer(nn.Module):
    def __init__(self, dim_val, dim_attn, n_heads=1):
        super().__init__()
        self.attn = MultiHeadAttentionBlock(dim_val, dim_attn, n_heads)
        self.fc1 = nn.Linear(dim_val, dim_val)
        self.fc2 = nn.Linear(dim_val, dim_val)
        self.norm1 = nn.LayerNorm(dim_val)
        self.norm2 = nn.LayerNorm(dim_val)

    def forward(self, x):
        x = self.norm1(x + self.attn(x))
        return self.norm2(x + self.fc1(torch.relu(self.fc2(x))))


class DecoderLayer(nn.Module):
    def __init__(self, dim_val, dim_attn, n_heads=1):
        super().__init__()
        self.attn1 = MultiHeadAttentionBlock(dim_val, dim_attn, n_heads)
        self.attn2 = MultiHeadAttentionBlock(dim_val, dim_attn, n_heads)
        self.fc1 = nn.Linear(dim_val, dim_val)
        self.fc2 = nn.Linear(dim_val, dim_val)
        self.norm1 = nn.LayerNorm(dim_val)
        self.norm2 = nn.LayerNorm(dim_val)
        self.norm3 = nn.LayerNorm(dim_val)

    def forward(self, x, enc):
        x = self.norm1(self.attn1(x) + x)
        x = self.norm2(self.attn2(x, kv=enc) + x)
        return self.norm3(self.fc1(torch.relu(self.fc2(x))) + x)


class Transformer(nn.Module):
    def __init__(self, dim_val, dim_attn, input_size, dec_seq_len, out_seq_len,
                 n_decoder_layers=1, n_encoder_layers=1, n_heads=1):
        super().__init__()
        self.dec_seq_len = dec_seq_len
        self.encs = nn.ModuleList([EncoderLayer(dim_val, dim_attn, n_heads) for _ in range(n_encoder_layers)])
        self.decs = nn.ModuleList([DecoderLayer(dim_val, dim_attn, n_heads) for _ in range(n_decoder_layers)])
        self.pos = PositionalEncoding(dim_val)
        self.enc_input_fc = nn.Linear(input_size, dim_val)
        self.dec_input_fc = nn.Linear(input_size, dim_val)
        self.out_fc = nn.Linear(dec_seq_len * dim_val, out_seq_len)

    def forward(self, x):
        e = self.pos(self.enc_input_fc(x))
        for enc in self.encs:
            e = enc(e)
        d = self.dec_input_fc(x[:, -self.dec_seq_len:])
        for dec in self.decs:
            d = dec(d, e)
        return self.out_fc(d.flatten(start_dim=1))
