import torch
import torch.nn as nn


class TinyRecurrentLM(nn.Module):
    """Stand-in for a recurrent LM that processes a chunk of tokens from a carried state."""

    def __init__(self, vocab_size=256, dim=128):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, dim)
        self.cell = nn.GRU(dim, dim, batch_first=True)
        self.head = nn.Linear(dim, vocab_size)
        self.state_size = (1, dim)

    def forward_parallel(self, tokens, state):
        h, state_new = self.cell(self.embed(tokens), state)
        return self.head(h), state_new

    def save_model(self, path):
        torch.save(self.state_dict(), path)
