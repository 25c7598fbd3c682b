import torch

from model import Transformer

with torch.device("meta"):
    model = Transformer(vocab_size=32000, dim=512, n_heads=8, n_layers=8, max_seq_len=2048)
model.to_empty(device="cuda")
model.init_weights()
optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4)
