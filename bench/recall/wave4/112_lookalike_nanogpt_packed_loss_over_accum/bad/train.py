import torch
import torch.nn.functional as F


def get_batch(data, block_size, batch_size, device):
    ix = torch.randint(len(data) - block_size, (batch_size,))
    x = torch.stack([data[i : i + block_size] for i in ix])
    y = torch.stack([data[i + 1 : i + 1 + block_size] for i in ix])
    return x.to(device), y.to(device)


def train(model, data, optimizer, max_iters, gradient_accumulation_steps=8, block_size=1024, batch_size=12, device="cuda"):
    for _ in range(max_iters):
        for _micro_step in range(gradient_accumulation_steps):
            x, y = get_batch(data, block_size, batch_size, device)
            logits = model(x)
            loss = F.cross_entropy(logits.view(-1, logits.size(-1)), y.view(-1))
            loss = loss / gradient_accumulation_steps
            loss.backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
