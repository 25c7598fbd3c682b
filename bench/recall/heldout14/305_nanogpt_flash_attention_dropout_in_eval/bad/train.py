import torch

from model import GPT, GPTConfig

device = "cuda" if torch.cuda.is_available() else "cpu"
config = GPTConfig()
model = GPT(config).to(device)
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
data = torch.randint(0, config.vocab_size, (100_000,))
eval_iters = 20
batch_size = 32


def get_batch():
    ix = torch.randint(len(data) - config.block_size - 1, (batch_size,))
    x = torch.stack([data[i : i + config.block_size] for i in ix])
    y = torch.stack([data[i + 1 : i + 1 + config.block_size] for i in ix])
    return x.to(device), y.to(device)


@torch.no_grad()
def estimate_loss():
    model.eval()
    losses = torch.zeros(eval_iters)
    for k in range(eval_iters):
        x, y = get_batch()
        _, loss = model(x, y)
        losses[k] = loss.item()
    model.train()
    return losses.mean()


for it in range(200):
    if it % 50 == 0:
        print(f"iter {it}: val loss {estimate_loss():.4f}")
    x, y = get_batch()
    _, loss = model(x, y)
    optimizer.zero_grad(set_to_none=True)
    loss.backward()
    optimizer.step()
