import torch
import torch.nn.functional as F

from model import Encoder


def main():
    device = "cuda"
    model = Encoder(vocab=32000, rms=True).to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4)
    scaler = torch.amp.GradScaler("cuda")
    for step in range(200):
        tokens = torch.randint(0, 32000, (8, 256), device=device)
        with torch.autocast("cuda", dtype=torch.float16):
            logits = model(tokens[:, :-1])
            loss = F.cross_entropy(logits.reshape(-1, logits.size(-1)), tokens[:, 1:].reshape(-1))
        optimizer.zero_grad(set_to_none=True)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
        if step % 20 == 0:
            print(step, loss.item())


if __name__ == "__main__":
    main()
