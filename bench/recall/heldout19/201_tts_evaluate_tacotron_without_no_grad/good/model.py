import torch
import torch.nn as nn


class Tacotron(nn.Module):
    def __init__(self, num_chars, num_mels=80, num_freq=513, hidden=256):
        super().__init__()
        self.embedding = nn.Embedding(num_chars, hidden)
        self.encoder = nn.GRU(hidden, hidden // 2, batch_first=True, bidirectional=True)
        self.decoder = nn.GRU(hidden + num_mels, hidden, batch_first=True)
        self.mel_proj = nn.Linear(hidden, num_mels)
        self.postnet = nn.Sequential(nn.Linear(num_mels, hidden), nn.ReLU(), nn.Dropout(0.5),
                                     nn.Linear(hidden, num_freq))

    def forward(self, text, mel_frames):
        enc, _ = self.encoder(self.embedding(text))
        context = enc.mean(dim=1, keepdim=True).expand(-1, mel_frames.size(1), -1)
        dec, _ = self.decoder(torch.cat([context, mel_frames], dim=-1))
        mel = self.mel_proj(dec)
        linear = self.postnet(mel)
        alignments = torch.softmax(dec @ enc.transpose(1, 2), dim=-1)
        return mel, linear, alignments
