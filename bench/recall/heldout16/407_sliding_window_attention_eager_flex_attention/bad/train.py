import torch
import torch.nn.functional as F

from attention import WindowedTransformer


def main():
    device = torch.device("cuda")
    model = WindowedTransformer().to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4)
    for step in range(200):
        tokens = torch.randint(0, 32000, (4, 8192), device=device)
        with torch.autocast("cuda", dtype=torch.bfloat16):
            logits = model(tokens[:, :-1])
        loss = F.cross_entropy(logits.float().flatten(0, 1), tokens[:, 1:].flatten())
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        if step % 20 == 0:
            print(f"step {step}: loss {loss.item():.3f}")


if __name__ == "__main__":
    main()
