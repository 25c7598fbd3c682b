import os

import torch

from model import GPT, GPTConfig

out_dir = "out"
init_from = "resume"
device = "cuda" if torch.cuda.is_available() else "cpu"

if init_from == "resume":
    ckpt_path = os.path.join(out_dir, "ckpt.pt")
    checkpoint = torch.load(ckpt_path, map_location=device, weights_only=True)
    model = GPT(GPTConfig(**checkpoint["model_args"]))
    model.load_state_dict(checkpoint["model"])
else:
    raise ValueError(f"unknown init_from {init_from}")

model.eval()
model.to(device)
start = torch.zeros((1, 1), dtype=torch.long, device=device)
print(model.generate(start, max_new_tokens=500)[0].tolist())
