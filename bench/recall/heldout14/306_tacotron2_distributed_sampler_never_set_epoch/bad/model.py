import torch.nn as nn
import torch.nn.functional as F


class TinyTacotron(nn.Module):
    def __init__(self, n_symbols=148, emb=128, n_mels=80):
        super().__init__()
        self.embedding = nn.Embedding(n_symbols, emb)
        self.encoder = nn.LSTM(emb, emb // 2, batch_first=True, bidirectional=True)
        self.proj = nn.Linear(emb, n_mels)

    def forward(self, text, n_frames):
        h, _ = self.encoder(self.embedding(text))
        h = F.interpolate(h.transpose(1, 2), size=n_frames, mode="linear", align_corners=False)
        return self.proj(h.transpose(1, 2)).transpose(1, 2)
