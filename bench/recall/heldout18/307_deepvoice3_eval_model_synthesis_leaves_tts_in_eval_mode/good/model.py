import torch
from torch import nn


class ConvTTS(nn.Module):
    """Tiny convolutional seq2seq text-to-mel model with a done-flag head."""

    def __init__(self, n_vocab=64, embed=128, mel_dim=80, r=4, dropout=0.1):
        super().__init__()
        self.r = r
        self.mel_dim = mel_dim
        self.embed = nn.Embedding(n_vocab, embed)
        self.encoder = nn.Sequential(nn.Conv1d(embed, 256, 5, padding=2), nn.ReLU(), nn.Dropout(dropout))
        self.prenet = nn.Sequential(nn.Linear(mel_dim * r, 256), nn.ReLU(), nn.Dropout(0.5))
        self.attn = nn.MultiheadAttention(256, 4, batch_first=True)
        self.mel_out = nn.Linear(256, mel_dim * r)
        self.done = nn.Linear(256, 1)

    def forward(self, text, mel_frames):
        keys = self.encoder(self.embed(text).transpose(1, 2)).transpose(1, 2)
        q = self.prenet(mel_frames)
        ctx, align = self.attn(q, keys, keys)
        return self.mel_out(ctx), torch.sigmoid(self.done(ctx)).squeeze(-1), align
