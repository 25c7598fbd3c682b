import torch
import torch.nn.functional as F
from torch import nn


class RankingModel(nn.Module):
    """Scores candidate items from a user's interaction history, with several task heads."""

    def __init__(self, num_items, dim=64, num_tasks=2):
        super().__init__()
        self.item_emb = nn.Embedding(num_items, dim)
        layer = nn.TransformerEncoderLayer(dim, nhead=4, dim_feedforward=4 * dim, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, num_layers=2)
        self.heads = nn.ModuleList([nn.Linear(2 * dim, 1) for _ in range(num_tasks)])

    def forward(self, history, candidates, labels, weights):
        user = self.encoder(self.item_emb(history)).mean(dim=1)
        cand = self.item_emb(candidates)
        joint = torch.cat([user.unsqueeze(1).expand_as(cand), cand], dim=-1)
        preds = torch.stack([head(joint).squeeze(-1) for head in self.heads], dim=0)
        aux_losses = {}
        for task, logits in enumerate(preds):
            aux_losses[f"task_{task}"] = F.binary_cross_entropy_with_logits(
                logits, labels[task], weight=weights[task]
            )
        return aux_losses, preds.sigmoid(), labels, weights
