import torch
import torch.nn as nn
import torch.nn.functional as F


class DALLE(nn.Module):
    """Small stand-in: text tokens and an image are embedded and scored jointly."""

    def __init__(self, num_text_tokens=1000, dim=256, image_size=64, depth=2):
        super().__init__()
        self.text_emb = nn.Embedding(num_text_tokens, dim)
        self.image_proj = nn.Conv2d(3, dim, kernel_size=8, stride=8)
        layer = nn.TransformerEncoderLayer(dim, nhead=8, batch_first=True)
        self.transformer = nn.TransformerEncoder(layer, depth)
        self.to_logits = nn.Linear(dim, num_text_tokens)

    def forward(self, text, images, return_loss=False):
        image_tokens = self.image_proj(images).flatten(2).transpose(1, 2)
        tokens = torch.cat([self.text_emb(text), image_tokens], dim=1)
        out = self.transformer(tokens)
        logits = self.to_logits(out[:, : text.shape[1] - 1])
        if not return_loss:
            return logits
        return F.cross_entropy(logits.transpose(1, 2), text[:, 1:])
