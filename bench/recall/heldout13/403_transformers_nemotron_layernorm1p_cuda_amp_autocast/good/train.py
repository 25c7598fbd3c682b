import torch
from torch.nn import functional as F

from modeling_nemo import TinyNemo


def main():
    device = "cuda"
    model = TinyNemo().to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4)
    for step in range(100):
        tokens = torch.randint(0, 1000, (8, 65), device=device)
        with torch.autocast("cuda", dtype=torch.bfloat16):
            logits = model(tokens[:, :-1])
        loss = F.cross_entropy(logits.float().reshape(-1, logits.size(-1)), tokens[:, 1:].reshape(-1))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if step % 10 == 0:
            print(step, loss.item())


if __name__ == "__main__":
    main()
