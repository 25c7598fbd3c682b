from typing import Optional

import torch
import torch.nn as nn
import torch.nn.functional as F


def mask_from_lens(lens, max_len: Optional[int] = None):
    if max_len is None:
        max_len = int(lens.max())
    ids = torch.arange(0, max_len, device=lens.device, dtype=lens.dtype)
    return torch.lt(ids, lens.unsqueeze(1))


def regulate_len(durations, enc_out, pace: float = 1.0, mel_max_len: Optional[int] = None):
    """Repeats each encoder frame by its (predicted or target) duration."""
    dtype = enc_out.dtype
    reps = durations.float() / pace
    reps = (reps + 0.5).long()
    dec_lens = reps.sum(dim=1)

    max_len = dec_lens.max()
    reps_cumsum = torch.cumsum(F.pad(reps, (1, 0, 0, 0), value=0.0), dim=1)[:, None, :]
    reps_cumsum = reps_cumsum.to(dtype)

    range_ = torch.arange(max_len, device=enc_out.device)[None, :, None]
    mult = (reps_cumsum[:, :, :-1] <= range_) & (reps_cumsum[:, :, 1:] > range_)
    mult = mult.to(dtype)
    enc_rep = torch.matmul(mult, enc_out)

    if mel_max_len is not None:
        enc_rep = enc_rep[:, :mel_max_len]
        dec_lens = torch.clamp_max(dec_lens, mel_max_len)
    return enc_rep, dec_lens


class TemporalPredictor(nn.Module):
    """Predicts one value (log-duration or pitch) per input token."""

    def __init__(self, input_size, filter_size=256, kernel_size=3, n_predictions=1):
        super().__init__()
        self.layers = nn.Sequential(
            nn.Conv1d(input_size, filter_size, kernel_size, padding=kernel_size // 2), nn.ReLU(),
            nn.Conv1d(filter_size, filter_size, kernel_size, padding=kernel_size // 2), nn.ReLU(),
        )
        self.fc = nn.Linear(filter_size, n_predictions)

    def forward(self, enc_out, enc_out_mask):
        out = enc_out * enc_out_mask
        out = self.layers(out.transpose(1, 2)).transpose(1, 2)
        return self.fc(out) * enc_out_mask


class FastPitch(nn.Module):
    def __init__(self, n_symbols=148, symbols_embedding_dim=384, n_mel_channels=80):
        super().__init__()
        self.embedding = nn.Embedding(n_symbols, symbols_embedding_dim)
        layer = nn.TransformerEncoderLayer(symbols_embedding_dim, 2, 1536, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, 2)
        self.duration_predictor = TemporalPredictor(symbols_embedding_dim)
        self.pitch_predictor = TemporalPredictor(symbols_embedding_dim)
        self.pitch_emb = nn.Conv1d(1, symbols_embedding_dim, 3, padding=1)
        self.decoder = nn.TransformerEncoder(nn.TransformerEncoderLayer(symbols_embedding_dim, 2, 1536,
                                                                        batch_first=True), 2)
        self.proj = nn.Linear(symbols_embedding_dim, n_mel_channels)

    def _encode(self, inputs, input_lens):
        enc_mask = mask_from_lens(input_lens, max_len=inputs.size(1)).unsqueeze(2)
        enc_out = self.encoder(self.embedding(inputs), src_key_padding_mask=~enc_mask.squeeze(2))
        return enc_out, enc_mask.to(enc_out.dtype)

    def forward(self, inputs, input_lens, dur_tgt, pitch_tgt, mel_max_len, pace=1.0):
        enc_out, enc_mask = self._encode(inputs, input_lens)
        log_dur_pred = self.duration_predictor(enc_out, enc_mask).squeeze(-1)
        pitch_pred = self.pitch_predictor(enc_out, enc_mask).permute(0, 2, 1)
        enc_out = enc_out + self.pitch_emb(pitch_tgt).transpose(1, 2)
        len_regulated, dec_lens = regulate_len(dur_tgt, enc_out, pace, mel_max_len)
        mel_out = self.proj(self.decoder(len_regulated))
        return mel_out, dec_lens, log_dur_pred, pitch_pred

    @torch.no_grad()
    def infer(self, inputs, input_lens, pace=1.0, max_duration=75):
        enc_out, enc_mask = self._encode(inputs, input_lens)
        log_dur_pred = self.duration_predictor(enc_out, enc_mask).squeeze(-1)
        dur_pred = torch.clamp(torch.exp(log_dur_pred) - 1, 0, max_duration)
        pitch_pred = self.pitch_predictor(enc_out, enc_mask).permute(0, 2, 1)
        enc_out = enc_out + self.pitch_emb(pitch_pred).transpose(1, 2)
        len_regulated, dec_lens = regulate_len(dur_pred, enc_out, pace)
        return self.proj(self.decoder(len_regulated)), dec_lens
