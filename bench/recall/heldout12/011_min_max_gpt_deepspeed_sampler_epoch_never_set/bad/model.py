import torch
import torch.nn as nn
import torch.nn.functional as F


class GPTModel(nn.Module):
    def __init__(self, vocab_size, n_embd=128, n_head=4, n_layer=4, max_len=512):
        super().__init__()
        self.wte = nn.Embedding(vocab_size, n_embd)
        self.wpe = nn.Embedding(max_len, n_embd)
        layer = nn.TransformerEncoderLayer(n_embd, n_head, 4 * n_embd, batch_first=True, norm_first=True)
        self.blocks = nn.TransformerEncoder(layer, n_layer)
        self.ln_f = nn.LayerNorm(n_embd)
        self.lm_head = nn.Linear(n_embd, vocab_size, bias=False)

    def forward(self, input_ids):
        pos = torch.arange(input_ids.size(1), device=input_ids.device)
        mask = nn.Transformer.generate_square_subsequent_mask(input_ids.size(1), device=input_ids.device)
        h = self.blocks(self.wte(input_ids) + self.wpe(pos), mask=mask, is_causal=True)
        logits = self.lm_head(self.ln_f(h))
        loss = F.cross_entropy(logits[:, :-1].flatten(0, 1), input_ids[:, 1:].flatten())
        return {"loss": loss, "logits": logits}
