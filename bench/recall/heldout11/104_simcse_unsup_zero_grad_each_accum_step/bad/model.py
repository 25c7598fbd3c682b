import torch
import torch.nn as nn
import torch.nn.functional as F


class SimCSE(nn.Module):
    """Unsupervised SimCSE: two dropout views of the same sentence are positives."""

    def __init__(self, vocab_size=30522, hidden=256, temperature=0.05):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, hidden)
        self.encoder = nn.TransformerEncoder(
            nn.TransformerEncoderLayer(hidden, nhead=4, dim_feedforward=4 * hidden, dropout=0.1, batch_first=True),
            num_layers=2,
        )
        self.temperature = temperature

    def encode(self, input_ids, attention_mask):
        h = self.encoder(self.embed(input_ids), src_key_padding_mask=attention_mask == 0)
        return h[:, 0]

    def forward(self, input_ids, attention_mask, token_type_ids=None):
        z1 = self.encode(input_ids, attention_mask)
        z2 = self.encode(input_ids, attention_mask)
        sim = F.cosine_similarity(z1.unsqueeze(1), z2.unsqueeze(0), dim=-1) / self.temperature
        labels = torch.arange(sim.size(0), device=sim.device)
        return {"loss": F.cross_entropy(sim, labels)}
