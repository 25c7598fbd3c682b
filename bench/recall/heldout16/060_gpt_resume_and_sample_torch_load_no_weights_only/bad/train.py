import os

import numpy as np
import torch

from model import GPT, GPTConfig

out_dir = "out"
init_from = "scratch"  # or "resume"
device = "cuda" if torch.cuda.is_available() else "cpu"
batch_size, block_size, max_iters = 64, 256, 5000
data = np.memmap("data/train.bin", dtype=np.uint16, mode="r")


def get_batch():
    ix = torch.randint(len(data) - block_size, (batch_size,))
    x = torch.stack([torch.from_numpy(data[i:i + block_size].astype(np.int64)) for i in ix])
    y = torch.stack([torch.from_numpy(data[i + 1:i + 1 + block_size].astype(np.int64)) for i in ix])
    return x.to(device), y.to(device)


iter_num = 0
model_args = dict(block_size=block_size, vocab_size=65, n_layer=6, n_head=6, n_embd=384, dropout=0.2)
if init_from == "scratch":
    model = GPT(GPTConfig(**model_args))
elif init_from == "resume":
    ckpt_path = os.path.join(out_dir, "ckpt.pt")
    checkpoint = torch.load(ckpt_path, map_location=device)  # expect: TCK401
    for k in ("n_layer", "n_head", "n_embd", "block_size", "vocab_size"):
        model_args[k] = checkpoint["model_args"][k]
    model = GPT(GPTConfig(**model_args))
    model.load_state_dict(checkpoint["model"])
    iter_num = checkpoint["iter_num"]
model.to(device)

optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
if init_from == "resume":
    optimizer.load_state_dict(checkpoint["optimizer"])

while iter_num < max_iters:
    x, y = get_batch()
    _, loss = model(x, y)
    optimizer.zero_grad(set_to_none=True)
    loss.backward()
    optimizer.step()
    iter_num += 1
    if iter_num % 1000 == 0:
        torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                    "model_args": model_args, "iter_num": iter_num}, os.path.join(out_dir, "ckpt.pt"))
