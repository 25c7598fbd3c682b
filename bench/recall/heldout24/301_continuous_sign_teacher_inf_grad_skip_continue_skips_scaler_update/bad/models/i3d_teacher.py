"""Teacher network for continuous sign recognition: temporal convolutions over pose features, then a BiLSTM."""
import torch
import torch.nn as nn


class TemporalBlock(nn.Module):
    def __init__(self, channels: int, kernel_size: int = 5, dropout: float = 0.2):
        super().__init__()
        self.conv = nn.Conv1d(channels, channels, kernel_size, padding=kernel_size // 2)
        self.norm = nn.BatchNorm1d(channels)
        self.drop = nn.Dropout(dropout)

    def forward(self, x):
        return x + self.drop(torch.relu(self.norm(self.conv(x))))


class I3DTeacher(nn.Module):
    def __init__(self, input_dim: int, hidden_dim: int, vocab_size: int, num_blocks: int = 3):
        super().__init__()
        self.proj = nn.Linear(input_dim, hidden_dim)
        self.blocks = nn.Sequential(*[TemporalBlock(hidden_dim) for _ in range(num_blocks)])
        self.rnn = nn.LSTM(hidden_dim, hidden_dim // 2, batch_first=True, bidirectional=True)
        self.head = nn.Linear(hidden_dim, vocab_size)
        for module in self.modules():
            if isinstance(module, nn.Linear):
                nn.init.xavier_uniform_(module.weight, gain=0.1)
                nn.init.zeros_(module.bias)

    def forward(self, features, input_lengths):
        x = self.proj(features)
        x = self.blocks(x.transpose(1, 2)).transpose(1, 2)
        packed = nn.utils.rnn.pack_padded_sequence(x, input_lengths.cpu(), batch_first=True, enforce_sorted=False)
        out, _ = self.rnn(packed)
        out, _ = nn.utils.rnn.pad_packed_sequence(out, batch_first=True, total_length=features.size(1))
        return self.head(out)


def create_i3d_teacher(input_dim: int, vocab_size: int, hidden_dim: int = 512) -> I3DTeacher:
    return I3DTeacher(input_dim=input_dim, hidden_dim=hidden_dim, vocab_size=vocab_size)
