import torch
import torch.nn as nn


class TinyLM(nn.Module):
    def __init__(self, vocab=512, dim=128):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.block = nn.TransformerEncoderLayer(dim, 4, batch_first=True)
        self.head = nn.Linear(dim, vocab)

    def forward(self, input_ids, attention_mask=None):
        pad = None if attention_mask is None else attention_mask == 0
        h = self.block(self.embed(input_ids), src_key_padding_mask=pad)
        return self.head(h)

    @torch.no_grad()
    def generate(self, input_ids, steps=8):
        for _ in range(steps):
            nxt = self(input_ids)[:, -1].argmax(-1, keepdim=True)
            input_ids = torch.cat([input_ids, nxt], dim=1)
        return input_ids
