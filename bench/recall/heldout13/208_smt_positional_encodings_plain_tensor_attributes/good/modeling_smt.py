import torch
import torch.nn as nn


class PositionalEncoding2D(nn.Module):
    def __init__(self, dim, h_max, w_max):
        super().__init__()
        self.h_max = h_max
        self.w_max = w_max
        self.dim = dim
        self.register_buffer("pe", torch.zeros((1, dim, h_max, w_max)), persistent=False)

        div = torch.exp(-torch.arange(0.0, dim // 2, 2) / dim * torch.log(torch.tensor(10000.0))).unsqueeze(1)
        w_pos = torch.arange(0.0, w_max)
        h_pos = torch.arange(0.0, h_max)
        self.pe[:, :dim // 2:2, :, :] = torch.sin(h_pos * div).unsqueeze(0).unsqueeze(3).repeat(1, 1, 1, w_max)
        self.pe[:, 1:dim // 2:2, :, :] = torch.cos(h_pos * div).unsqueeze(0).unsqueeze(3).repeat(1, 1, 1, w_max)
        self.pe[:, dim // 2::2, :, :] = torch.sin(w_pos * div).unsqueeze(0).unsqueeze(2).repeat(1, 1, h_max, 1)
        self.pe[:, dim // 2 + 1::2, :, :] = torch.cos(w_pos * div).unsqueeze(0).unsqueeze(2).repeat(1, 1, h_max, 1)

    def forward(self, x):
        """x: (B, C, H, W)"""
        return x + self.pe[:, :, :x.size(2), :x.size(3)]

    def get_pe_by_size(self, h, w, device):
        return self.pe[:, :, :h, :w]


class PositionalEncoding1D(nn.Module):
    def __init__(self, dim, len_max):
        super().__init__()
        self.len_max = len_max
        self.dim = dim
        self.register_buffer("pe", torch.zeros((1, dim, len_max)), persistent=False)

        div = torch.exp(-torch.arange(0.0, dim, 2) / dim * torch.log(torch.tensor(10000.0))).unsqueeze(1)
        l_pos = torch.arange(0.0, len_max)
        self.pe[:, ::2, :] = torch.sin(l_pos * div).unsqueeze(0)
        self.pe[:, 1::2, :] = torch.cos(l_pos * div).unsqueeze(0)

    def forward(self, x, start):
        """x: (B, C, L); start: index of x[:, :, 0] (an int, or one per sample)"""
        if isinstance(start, int):
            return x + self.pe[:, :, start:start + x.size(2)]
        for i in range(x.size(0)):
            x[i] = x[i] + self.pe[0, :, start[i]:start[i] + x.size(2)]
        return x


class SMTModel(nn.Module):
    """Image encoder + autoregressive decoder for score transcription."""

    def __init__(self, vocab_size=512, dim=256, h_max=64, w_max=256, len_max=1024):
        super().__init__()
        self.encoder = nn.Sequential(
            nn.Conv2d(1, dim // 2, 3, stride=2, padding=1), nn.ReLU(),
            nn.Conv2d(dim // 2, dim, 3, stride=2, padding=1), nn.ReLU(),
        )
        self.pos_2d = PositionalEncoding2D(dim, h_max, w_max)
        self.embedding = nn.Embedding(vocab_size, dim)
        self.pos_1d = PositionalEncoding1D(dim, len_max)
        layer = nn.TransformerDecoderLayer(dim, nhead=8, batch_first=True)
        self.decoder = nn.TransformerDecoder(layer, num_layers=4)
        self.out = nn.Linear(dim, vocab_size)

    def forward(self, image, tokens):
        feats = self.pos_2d(self.encoder(image))
        memory = feats.flatten(2).transpose(1, 2)
        dec_in = self.embedding(tokens).permute(0, 2, 1).contiguous()
        dec_in = self.pos_1d(dec_in, start=0).permute(0, 2, 1).contiguous()
        mask = nn.Transformer.generate_square_subsequent_mask(tokens.size(1), device=tokens.device)
        return self.out(self.decoder(dec_in, memory, tgt_mask=mask, tgt_is_causal=True))
