import torch
import torch.nn as nn
import torch.nn.functional as F


class TinyVLM(nn.Module):
    """A toy vision-language model: patch encoder + projector + small causal decoder."""

    def __init__(self, vocab_size=32000, dim=256, img_size=64, patch=16, layers=2):
        super().__init__()
        self.patch_embed = nn.Conv2d(3, dim, kernel_size=patch, stride=patch)
        self.projector = nn.Linear(dim, dim)
        self.tok = nn.Embedding(vocab_size, dim)
        layer = nn.TransformerEncoderLayer(dim, nhead=4, dim_feedforward=4 * dim, batch_first=True)
        self.decoder = nn.TransformerEncoder(layer, num_layers=layers)
        self.head = nn.Linear(dim, vocab_size)
        self.n_img_tokens = (img_size // patch) ** 2

    def forward(self, input_ids, images, attention_mask=None, targets=None):
        img = self.projector(self.patch_embed(images).flatten(2).transpose(1, 2))
        x = torch.cat([img, self.tok(input_ids)], dim=1)
        t = x.size(1)
        causal = torch.triu(torch.full((t, t), float("-inf"), device=x.device), diagonal=1)
        h = self.decoder(x, mask=causal)
        logits = self.head(h[:, self.n_img_tokens:])
        loss = None
        if targets is not None:
            loss = F.cross_entropy(logits.reshape(-1, logits.size(-1)), targets.reshape(-1), ignore_index=-100)
        return logits, loss
