import torch
import torch.nn.functional as F
from torch import nn


class DurationPredictor(nn.Module):
    def __init__(self, dim, hidden=256, dropout=0.1):
        super().__init__()
        self.conv1 = nn.Conv1d(dim, hidden, 3, padding=1)
        self.conv2 = nn.Conv1d(hidden, hidden, 3, padding=1)
        self.norm1 = nn.LayerNorm(hidden)
        self.norm2 = nn.LayerNorm(hidden)
        self.drop = nn.Dropout(dropout)
        self.proj = nn.Linear(hidden, 1)

    def forward(self, x, mask):
        x = F.relu(self.conv1(x.transpose(1, 2))).transpose(1, 2)
        x = self.drop(self.norm1(x))
        x = F.relu(self.conv2(x.transpose(1, 2))).transpose(1, 2)
        x = self.drop(self.norm2(x))
        return self.proj(x) * mask


def length_regulate(feats, durations):
    out = []
    for f, d in zip(feats, durations):
        out.append(torch.repeat_interleave(f, d.long(), dim=0))
    return nn.utils.rnn.pad_sequence(out, batch_first=True)


class FastSpeech2(nn.Module):
    def __init__(self, vocab=80, dim=256, n_mels=80, layers=4):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        enc_layer = nn.TransformerEncoderLayer(dim, 2, 1024, batch_first=True)
        self.encoder = nn.TransformerEncoder(enc_layer, layers)
        self.dur_pred = DurationPredictor(dim)
        self.decoder = nn.TransformerEncoder(nn.TransformerEncoderLayer(dim, 2, 1024, batch_first=True), layers)
        self.to_mel = nn.Linear(dim, n_mels)

    def forward(self, tokens, durations=None, pace=1.0):
        pad_mask = tokens == 0
        feats = self.encoder(self.embed(tokens), src_key_padding_mask=pad_mask)
        mask = (~pad_mask).unsqueeze(-1).float()
        log_durations = self.dur_pred(feats, mask).squeeze(-1)
        if durations is None:
            dur_pred = torch.clamp(torch.special.expm1(log_durations), 0)
            durations = torch.round(dur_pred / pace)
        expanded = length_regulate(feats, durations)
        mel = self.to_mel(self.decoder(expanded))
        return mel, log_durations


class FastSpeechLoss(nn.Module):
    def __init__(self, log_scale_durations=True, duration_weight=1.0):
        super().__init__()
        self.log_scale_durations = log_scale_durations
        self.duration_weight = duration_weight
        self.mel_loss = nn.MSELoss()
        self.dur_loss = nn.MSELoss()

    def forward(self, mel_out, log_durations, mel_target, target_durations):
        if self.log_scale_durations:
            log_target_durations = torch.log1p(target_durations.float())
        else:
            log_target_durations = target_durations.float()
        n = min(mel_out.shape[1], mel_target.shape[1])
        mel_loss = self.mel_loss(mel_out[:, :n], mel_target[:, :n])
        dur_loss = self.dur_loss(log_durations, log_target_durations)
        return mel_loss + self.duration_weight * dur_loss
