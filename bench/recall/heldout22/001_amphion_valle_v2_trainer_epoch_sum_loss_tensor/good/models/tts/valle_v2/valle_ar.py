from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F


@dataclass
class ARModelOutput:
    loss: torch.Tensor
    logits: torch.Tensor


class ValleAR(nn.Module):
    def __init__(self, phone_vocab_size=256, target_vocab_size=1024, hidden_size=1024,
                 num_hidden_layers=12, num_attention_heads=16, pad_token_id=1281):
        super().__init__()
        self.phone_embedding = nn.Embedding(phone_vocab_size + 10, hidden_size)
        self.target_embedding = nn.Embedding(target_vocab_size + 10, hidden_size)
        layer = nn.TransformerEncoderLayer(hidden_size, num_attention_heads, 4 * hidden_size, batch_first=True)
        self.decoder = nn.TransformerEncoder(layer, num_hidden_layers)
        self.head = nn.Linear(hidden_size, target_vocab_size + 10)
        self.pad_token_id = pad_token_id

    def forward(self, phone_ids, phone_mask, target_ids, target_mask):
        x = torch.cat([self.phone_embedding(phone_ids), self.target_embedding(target_ids)], dim=1)
        mask = torch.cat([phone_mask, target_mask], dim=1)
        size = x.size(1)
        causal = torch.triu(torch.full((size, size), float("-inf"), device=x.device), diagonal=1)
        h = self.decoder(x, mask=causal, src_key_padding_mask=~mask.bool())
        logits = self.head(h[:, phone_ids.size(1) - 1:-1])
        labels = target_ids.masked_fill(~target_mask.bool(), -100)
        loss = F.cross_entropy(logits.transpose(1, 2), labels, ignore_index=-100)
        return ARModelOutput(loss=loss, logits=logits)
