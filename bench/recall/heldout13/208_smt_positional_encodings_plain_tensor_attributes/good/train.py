import torch
import torch.nn.functional as F

from modeling_smt import SMTModel


def main():
    device = torch.device("cuda:1" if torch.cuda.device_count() > 1 else "cpu")
    model = SMTModel().to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
    for step in range(100):
        images = torch.randn(4, 1, 128, 512, device=device)
        tokens = torch.randint(0, 512, (4, 65), device=device)
        logits = model(images, tokens[:, :-1])
        loss = F.cross_entropy(logits.reshape(-1, logits.size(-1)), tokens[:, 1:].reshape(-1))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if step % 10 == 0:
            print(f"step {step}: loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
