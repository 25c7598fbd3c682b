import torch.nn as nn


class GPTModel(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.tok_emb = nn.Embedding(cfg["vocab_size"], cfg["emb_dim"])
        self.pos_emb = nn.Embedding(cfg["context_length"], cfg["emb_dim"])
        self.trf_blocks = nn.Sequential(*[nn.TransformerEncoderLayer(cfg["emb_dim"], cfg["n_heads"], batch_first=True) for _ in range(cfg["n_layers"])])
        self.out_head = nn.Linear(cfg["emb_dim"], cfg["vocab_size"], bias=False)

    def forward(self, idx):
        x = self.tok_emb(idx) + self.pos_emb.weight[: idx.shape[1]]
        return self.out_head(self.trf_blocks(x))
