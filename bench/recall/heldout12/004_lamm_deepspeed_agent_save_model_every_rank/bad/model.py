import torch
import torch.nn as nn
import torch.nn.functional as F


class LAMMPEFTModel(nn.Module):
    def __init__(self, vocab=1000, dim=256, vision_dim=512):
        super().__init__()
        self.visual_encoder = nn.Linear(vision_dim, vision_dim)
        self.llama_proj = nn.Linear(vision_dim, dim)
        self.embed = nn.Embedding(vocab, dim)
        self.decoder = nn.TransformerEncoder(nn.TransformerEncoderLayer(dim, 4, batch_first=True), 2)
        self.lm_head = nn.Linear(dim, vocab)
        for p in self.visual_encoder.parameters():
            p.requires_grad = False

    def forward(self, batch):
        vision = self.llama_proj(self.visual_encoder(batch["vision"])).unsqueeze(1)
        h = torch.cat([vision, self.embed(batch["input_ids"])], dim=1)
        logits = self.lm_head(self.decoder(h))[:, 1:]
        loss = F.cross_entropy(logits.flatten(0, 1), batch["labels"].flatten(), ignore_index=-100)
        acc = (logits.argmax(-1) == batch["labels"]).float().mean().item()
        return loss, acc
