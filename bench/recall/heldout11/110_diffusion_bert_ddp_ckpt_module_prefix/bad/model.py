import torch
import torch.nn as nn


class TinyBertForMaskedLM(nn.Module):
    def __init__(self, vocab_size=30522, hidden=256, layers=4, num_steps=2048):
        super().__init__()
        self.embeddings = nn.Embedding(vocab_size, hidden)
        self.time_embed = nn.Embedding(num_steps, hidden)
        layer = nn.TransformerEncoderLayer(hidden, 4, 4 * hidden, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, layers)
        self.lm_head = nn.Linear(hidden, vocab_size)

    def forward(self, input_ids, timestep, attention_mask):
        h = self.embeddings(input_ids) + self.time_embed(timestep).unsqueeze(1)
        h = self.encoder(h, src_key_padding_mask=attention_mask == 0)
        return {"logits": self.lm_head(h)}
