import torch
import torch.nn as nn
import torch.nn.functional as F


class AttentionPooling(nn.Module):
    """Scores every time step and returns the attention-weighted sum of the sequence."""

    def __init__(self, hidden_dim):
        super().__init__()
        self.score = nn.Sequential(nn.Linear(hidden_dim, hidden_dim), nn.Tanh(), nn.Linear(hidden_dim, 1))

    def forward(self, h):  # h: (batch, time, hidden)
        weights = F.softmax(self.score(h))  # expect: TCK608
        return (weights * h).sum(dim=1)


class SequenceClassifier(nn.Module):
    def __init__(self, n_features, hidden_dim, n_classes):
        super().__init__()
        self.encoder = nn.GRU(n_features, hidden_dim, batch_first=True, bidirectional=True)
        self.pool = AttentionPooling(2 * hidden_dim)
        self.head = nn.Linear(2 * hidden_dim, n_classes)

    def forward(self, x):
        h, _ = self.encoder(x)
        return self.head(self.pool(h))
