import torch.nn as nn


class TextClassifier(nn.Module):
    def __init__(self, vocab_size, num_classes, dim=256):
        super().__init__()
        self.embed = nn.EmbeddingBag(vocab_size, dim, mode="mean")
        self.mlp = nn.Sequential(nn.Linear(dim, dim), nn.ReLU(), nn.Dropout(0.1), nn.Linear(dim, num_classes))

    def forward(self, tokens, offsets):
        return self.mlp(self.embed(tokens, offsets))
