"""Input embeddings of the Informer encoder/decoder: value, position and calendar features."""

import math

import torch
import torch.nn as nn


class PositionalEmbedding(nn.Module):
    def __init__(self, d_model, max_len=5000):
        super(PositionalEmbedding, self).__init__()
        # sinusoidal table, computed once and kept as a buffer
        table = torch.zeros(max_len, d_model).float()
        table.require_grad = False  # expect: TCK905

        pos = torch.arange(0, max_len).float().unsqueeze(1)
        freq = (torch.arange(0, d_model, 2).float() * -(math.log(10000.0) / d_model)).exp()
        table[:, 0::2] = torch.sin(pos * freq)
        table[:, 1::2] = torch.cos(pos * freq)

        self.register_buffer("pe", table.unsqueeze(0))

    def forward(self, x):
        return self.pe[:, : x.size(1)]


class TokenEmbedding(nn.Module):
    def __init__(self, c_in, d_model):
        super(TokenEmbedding, self).__init__()
        self.conv = nn.Conv1d(c_in, d_model, kernel_size=3, padding=1, padding_mode="circular")
        nn.init.kaiming_normal_(self.conv.weight, mode="fan_in", nonlinearity="leaky_relu")

    def forward(self, x):
        return self.conv(x.permute(0, 2, 1)).transpose(1, 2)


class FixedEmbedding(nn.Module):
    """Calendar field embedding with a frozen sinusoidal table."""

    def __init__(self, c_in, d_model):
        super(FixedEmbedding, self).__init__()
        weight = torch.zeros(c_in, d_model).float()
        weight.require_grad = False  # expect: TCK905

        pos = torch.arange(0, c_in).float().unsqueeze(1)
        freq = (torch.arange(0, d_model, 2).float() * -(math.log(10000.0) / d_model)).exp()
        weight[:, 0::2] = torch.sin(pos * freq)
        weight[:, 1::2] = torch.cos(pos * freq)

        self.emb = nn.Embedding(c_in, d_model)
        self.emb.weight = nn.Parameter(weight, requires_grad=False)

    def forward(self, x):
        return self.emb(x).detach()


class TemporalEmbedding(nn.Module):
    def __init__(self, d_model, embed_type="fixed", freq="h"):
        super(TemporalEmbedding, self).__init__()
        Embed = FixedEmbedding if embed_type == "fixed" else nn.Embedding
        if freq == "t":
            self.minute_embed = Embed(4, d_model)
        self.hour_embed = Embed(24, d_model)
        self.weekday_embed = Embed(7, d_model)
        self.day_embed = Embed(32, d_model)
        self.month_embed = Embed(13, d_model)

    def forward(self, x):
        x = x.long()
        minute = self.minute_embed(x[:, :, 4]) if hasattr(self, "minute_embed") else 0.0
        return (
            minute
            + self.hour_embed(x[:, :, 3])
            + self.weekday_embed(x[:, :, 2])
            + self.day_embed(x[:, :, 1])
            + self.month_embed(x[:, :, 0])
        )


class DataEmbedding(nn.Module):
    def __init__(self, c_in, d_model, embed_type="fixed", freq="h", dropout=0.1):
        super(DataEmbedding, self).__init__()
        self.value_embedding = TokenEmbedding(c_in, d_model)
        self.position_embedding = PositionalEmbedding(d_model)
        self.temporal_embedding = TemporalEmbedding(d_model, embed_type, freq)
        self.dropout = nn.Dropout(p=dropout)

    def forward(self, x, x_mark):
        x = self.value_embedding(x) + self.position_embedding(x) + self.temporal_embedding(x_mark)
        return self.dropout(x)
