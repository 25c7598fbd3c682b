import torch
from torch import nn
from torch.nn import functional as F


class GPT(nn.Module):
    def __init__(self, vocab_size=50304, n_embd=384, n_layer=6, block_size=256):
        super().__init__()
        self.wte = nn.Embedding(vocab_size, n_embd)
        self.wpe = nn.Embedding(block_size, n_embd)
        self.blocks = nn.Sequential(*[nn.TransformerEncoderLayer(n_embd, 6, 4 * n_embd, batch_first=True) for _ in range(n_layer)])
        self.lm_head = nn.Linear(n_embd, vocab_size, bias=False)

    def forward(self, idx, targets):
        pos = torch.arange(idx.size(1), device=idx.device)
        x = self.blocks(self.wte(idx) + self.wpe(pos))
        logits = self.lm_head(x)
        return logits, F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1))
