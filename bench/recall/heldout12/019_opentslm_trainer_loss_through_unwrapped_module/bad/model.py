import torch
import torch.nn as nn
import torch.nn.functional as F


class TimeSeriesEncoder(nn.Module):
    def __init__(self, patch=16, dim=256):
        super().__init__()
        self.patch = patch
        self.proj = nn.Linear(patch, dim)
        self.encoder = nn.TransformerEncoder(nn.TransformerEncoderLayer(dim, 4, batch_first=True), num_layers=2)

    def forward(self, series):
        b, length = series.shape
        patches = series[:, : length - length % self.patch].reshape(b, -1, self.patch)
        return self.encoder(self.proj(patches))


class TimeSeriesLM(nn.Module):
    """Soft-prompt time-series language model: series embeddings are prepended to the text tokens."""

    def __init__(self, vocab_size=32000, dim=256):
        super().__init__()
        self.ts_encoder = TimeSeriesEncoder(dim=dim)
        self.embed = nn.Embedding(vocab_size, dim)
        self.decoder = nn.TransformerEncoder(nn.TransformerEncoderLayer(dim, 4, batch_first=True), num_layers=4)
        self.lm_head = nn.Linear(dim, vocab_size)

    def forward(self, series, input_ids):
        prefix = self.ts_encoder(series)
        hidden = self.decoder(torch.cat([prefix, self.embed(input_ids)], dim=1))
        return self.lm_head(hidden[:, prefix.shape[1]:])

    def compute_loss(self, batch):
        logits = self(batch["series"], batch["input_ids"][:, :-1])
        labels = batch["input_ids"][:, 1:]
        return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), labels.reshape(-1), ignore_index=0)
