import argparse

import torch
import torch.nn.functional as F

from blocks import TinyUNet


def q_sample(x0, t, noise, num_steps=1000):
    alpha_bar = torch.cos((t.float() / num_steps) * torch.pi / 2) ** 2
    a = alpha_bar.view(-1, 1, 1, 1)
    return a.sqrt() * x0 + (1 - a).sqrt() * noise


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--dropout", type=float, default=0.1)
    parser.add_argument("--use_checkpoint", action="store_true")
    parser.add_argument("--steps", type=int, default=1000)
    args = parser.parse_args()

    device = "cuda" if torch.cuda.is_available() else "cpu"
    model = TinyUNet(dropout=args.dropout, use_checkpoint=args.use_checkpoint).to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
    model.train()
    for step in range(args.steps):
        x0 = torch.randn(8, 3, 32, 32, device=device)
        t = torch.randint(0, 1000, (8,), device=device)
        noise = torch.randn_like(x0)
        pred = model(q_sample(x0, t, noise), t)
        loss = F.mse_loss(pred, noise)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if step % 100 == 0:
            print(step, loss.item())


if __name__ == "__main__":
    main()
