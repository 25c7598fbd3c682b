from contextlib import nullcontext

import torch

from model import GPT, GPTConfig

device = "cuda"
dtype = "bfloat16" if torch.cuda.is_available() and torch.cuda.is_bf16_supported() else "float16"
gradient_accumulation_steps = 40
ptdtype = {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}[dtype]
ctx = nullcontext() if device == "cpu" else torch.amp.autocast(device_type="cuda", dtype=ptdtype)

model = GPT(GPTConfig())
model.to(device)

scaler = torch.amp.GradScaler("cuda", enabled=(dtype == "float16"))
optimizer = model.configure_optimizers(0.1, 6e-4, (0.9, 0.95), "cuda")


def get_batch(split):
    data = torch.randint(0, 50304, (12, 1025))
    return data[:, :-1].to(device), data[:, 1:].to(device)


X, Y = get_batch("train")
for iter_num in range(5000):
    for micro_step in range(gradient_accumulation_steps):
        with ctx:
            logits, loss = model(X, Y)
            loss = loss / gradient_accumulation_steps
        X, Y = get_batch("train")
        scaler.scale(loss).backward()
    scaler.unscale_(optimizer)
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    scaler.step(optimizer)
    scaler.update()
    optimizer.zero_grad(set_to_none=True)
