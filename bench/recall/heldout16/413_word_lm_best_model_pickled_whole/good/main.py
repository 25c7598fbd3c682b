import argparse
import math

import torch
import torch.nn.functional as F

from model import RNNModel

NTOKENS = 10000


def batches(n, seq_len=35, batch_size=20, device="cpu"):
    for _ in range(n):
        data = torch.randint(0, NTOKENS, (seq_len + 1, batch_size), device=device)
        yield data[:-1], data[1:]


def train_epoch(model, optimizer, device):
    model.train()
    for inputs, targets in batches(200, device=device):
        optimizer.zero_grad()
        output = model(inputs)
        loss = F.cross_entropy(output.view(-1, NTOKENS), targets.reshape(-1))
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 0.25)
        optimizer.step()


@torch.no_grad()
def evaluate(model, device):
    model.eval()
    total, count = 0.0, 0
    for inputs, targets in batches(20, device=device):
        output = model(inputs)
        total += F.cross_entropy(output.view(-1, NTOKENS), targets.reshape(-1)).item()
        count += 1
    return total / count


def main():
    parser = argparse.ArgumentParser(description="word-level language model")
    parser.add_argument("--epochs", type=int, default=40)
    parser.add_argument("--save", default="model.pt")
    parser.add_argument("--compile", action="store_true")
    args = parser.parse_args()
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

    raw_model = RNNModel(NTOKENS).to(device)
    model = torch.compile(raw_model) if args.compile else raw_model
    optimizer = torch.optim.SGD(model.parameters(), lr=20.0)

    best_val_loss = None
    for epoch in range(1, args.epochs + 1):
        train_epoch(model, optimizer, device)
        val_loss = evaluate(model, device)
        print(f"| end of epoch {epoch:3d} | valid loss {val_loss:5.2f} | valid ppl {math.exp(val_loss):8.2f}")
        if best_val_loss is None or val_loss < best_val_loss:
            with open(args.save, "wb") as f:
                torch.save(raw_model.state_dict(), f)
            best_val_loss = val_loss

    with open(args.save, "rb") as f:
        raw_model.load_state_dict(torch.load(f, weights_only=True))
    print(f"| end of training | test loss {evaluate(model, device):5.2f}")


if __name__ == "__main__":
    main()
