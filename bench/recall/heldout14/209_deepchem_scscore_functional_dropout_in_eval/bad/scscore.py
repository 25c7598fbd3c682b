import torch
import torch.nn as nn
import torch.nn.functional as F


class ScScore(nn.Module):
    """Synthetic-complexity score: a feed-forward net over Morgan fingerprints, output in [1, 5]."""

    def __init__(self, n_features=1024, layer_sizes=(300, 300, 300, 300, 300), dropout=0.0,
                 score_scale=5):
        super().__init__()
        self.dropout = dropout
        self.score_scale = score_scale
        self.input_layer = nn.Linear(n_features, layer_sizes[0])
        self.hidden_layers = nn.ModuleList(
            nn.Linear(a, b) for a, b in zip(layer_sizes[:-1], layer_sizes[1:])
        )
        self.output_layer = nn.Linear(layer_sizes[-1], 1)

    def forward(self, x):
        x = F.relu(self.input_layer(x))
        if self.dropout > 0.0:
            x = F.dropout(x, p=self.dropout)  # expect: TCK604
        for layer in self.hidden_layers:
            x = F.relu(layer(x))
            if self.dropout > 0.0:
                x = F.dropout(x, p=self.dropout)  # expect: TCK604
        return 1 + (self.score_scale - 1) * torch.sigmoid(self.output_layer(x))
