"""Train a small MoE language model with bf16 autocast."""
from types import SimpleNamespace

import torch
import torch.nn.functional as F

from research.conditional.utils.model_utils import get_model

args = SimpleNamespace(ff_mode="token_choice", vocab_size=30522, dmodel=256, dff=1024, n_blocks=4,
                       n_att_heads=4, n_experts=8, expert_size=256, learning_rate=3e-4)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = get_model(args, device)
optimizer = torch.optim.AdamW(model.parameters(), lr=args.learning_rate)

for step in range(100):
    tokens = torch.randint(0, args.vocab_size, (8, 128), device=device)
    with torch.autocast(device_type=device.type, dtype=torch.bfloat16):
        logits = model(tokens[:, :-1])
        loss = F.cross_entropy(logits.flatten(0, 1).float(), tokens[:, 1:].flatten())
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
