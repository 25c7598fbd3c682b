import torch
import torch.nn as nn
import torch.nn.functional as F


class SimpleBrokenModel(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.config = config
        self.embedding = nn.Embedding(config["vocab_size"], config["d_model"])
        self.linear = nn.Sequential(
            nn.Linear(config["d_model"], config["d_model"]),
            nn.ReLU(),
            nn.Linear(config["d_model"], config["vocab_size"]),
        )

    def forward(self, idx, targets=None):
        x = self.embedding(idx)
        a = self.linear(x)
        logits = F.softmax(a, dim=-1)
        if targets is not None:
            loss = F.cross_entropy(logits.view(-1, self.config["vocab_size"]), targets.view(-1))  # expect: TCK605
            return logits, loss
        return logits
