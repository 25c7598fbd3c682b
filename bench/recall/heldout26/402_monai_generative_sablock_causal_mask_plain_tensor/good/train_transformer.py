"""Fit the token transformer of a VQ-VAE + transformer model on the GPU."""
import torch
import torch.nn.functional as F

from generative.networks.nets.transformer import DecoderOnlyTransformer

device = torch.device("cuda")
model = DecoderOnlyTransformer(num_tokens=257, max_seq_len=256, attn_layers_dim=96,
                               attn_layers_depth=4, attn_layers_heads=8).to(device)
optimizer = torch.optim.Adam(model.parameters(), lr=2.5e-4)

for step in range(500):
    tokens = torch.randint(0, 257, (8, 257), device=device)
    logits = model(tokens[:, :-1])
    loss = F.cross_entropy(logits.transpose(1, 2), tokens[:, 1:])
    optimizer.zero_grad(set_to_none=True)
    loss.backward()
    optimizer.step()
