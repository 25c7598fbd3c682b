import torch.nn as nn


class HFTransformer(nn.Module):
    def __init__(self, vocab_size, dim, depth, tie_word_embeddings=True):
        super().__init__()
        self.tok_embeddings = nn.Embedding(vocab_size, dim)
        self.layers = nn.ModuleList(nn.TransformerEncoderLayer(dim, 8, batch_first=True) for _ in range(depth))
        self.norm = nn.LayerNorm(dim)
        self.lm_head = nn.Linear(dim, vocab_size, bias=False)
        if tie_word_embeddings:
            self.lm_head.weight = self.tok_embeddings.weight
