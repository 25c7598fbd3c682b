import torch
import torch.nn as nn
import torch.nn.functional as F


class ActionPolicy(nn.Module):
    """Small vision-language-action head: encodes image features and text tokens, predicts actions."""

    def __init__(self, img_dim=512, vocab=32000, hidden=256, action_dim=7):
        super().__init__()
        self.img_proj = nn.Linear(img_dim, hidden)
        self.tok_emb = nn.Embedding(vocab, hidden)
        self.proprio_proj = nn.Linear(action_dim, hidden)
        self.trunk = nn.TransformerEncoder(
            nn.TransformerEncoderLayer(hidden, nhead=4, batch_first=True), num_layers=2
        )
        self.action_head = nn.Linear(hidden, action_dim)

    def forward(self, image_feats, input_ids, proprios):
        tokens = torch.cat(
            [self.img_proj(image_feats), self.tok_emb(input_ids), self.proprio_proj(proprios)], dim=1
        )
        hidden = self.trunk(tokens)
        return self.action_head(hidden[:, -1])

    def loss(self, image_feats, input_ids, proprios, actions):
        pred = self.forward(image_feats, input_ids, proprios)
        return F.mse_loss(pred, actions)
