import torch
from torch import nn


class SNLIClassifier(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.embed = nn.Embedding(config.n_embed, config.d_embed)
        self.encoder = nn.LSTM(config.d_embed, config.d_hidden, batch_first=False)
        self.out = nn.Sequential(nn.Linear(4 * config.d_hidden, config.d_hidden), nn.ReLU(), nn.Linear(config.d_hidden, config.d_out))

    def forward(self, batch):
        _, (premise, _) = self.encoder(self.embed(batch.premise))
        _, (hypothesis, _) = self.encoder(self.embed(batch.hypothesis))
        premise, hypothesis = premise[-1], hypothesis[-1]
        features = torch.cat([premise, hypothesis, premise - hypothesis, premise * hypothesis], 1)
        return self.out(features)
