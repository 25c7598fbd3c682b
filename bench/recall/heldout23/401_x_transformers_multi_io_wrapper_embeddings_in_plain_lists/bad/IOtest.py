import torch
import torch.nn.functional as F

from x_transformers.multi_IO.IO_wrapper import MultiIOTransformerWrapper
from x_transformers.x_transformers import AttentionLayers

model = MultiIOTransformerWrapper(
    num_tokens=[4, 4, 4],
    max_seq_len=8,
    input_attn_layers=[
        AttentionLayers(dim=4, depth=1, heads=1, causal=True),
        AttentionLayers(dim=4, depth=1, heads=1, causal=True),
        AttentionLayers(dim=4, depth=1, heads=1, causal=True),
    ],
    attn_layers=AttentionLayers(dim=12, depth=2, heads=4, causal=True),
)
print(sum(p.numel() for p in model.parameters()))
print(sum(p.numel() for p in model.parameters() if p.requires_grad))

optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
x = torch.tensor([[[0, 1, 2], [0, 2, 2], [0, 2, 2], [1, 1, 3]]]).long()
for step in range(500):
    inp, target = x[:, :-1], x[:, 1:]
    logits = model(inp)
    loss = sum(F.cross_entropy(l.transpose(1, 2), target[..., i]) for i, l in enumerate(logits))
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print(loss.item())
