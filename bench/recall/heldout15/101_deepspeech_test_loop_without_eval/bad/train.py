import argparse

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

from model import SpeechNet


def make_loader(n, shuffle):
    spects = torch.randn(n, 80, 200)
    targets = torch.randint(1, 29, (n, 30))
    return DataLoader(TensorDataset(spects, targets), batch_size=8, shuffle=shuffle)


def greedy_errors(log_probs, targets):
    pred = log_probs.argmax(-1)
    return (pred[:, : targets.size(1)] != targets).float().mean().item()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--lr", type=float, default=3e-4)
    args = parser.parse_args()

    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    train_loader = make_loader(256, shuffle=True)
    test_loader = make_loader(64, shuffle=False)

    model = SpeechNet().to(device)
    criterion = nn.CTCLoss(blank=0, zero_infinity=True)
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9, nesterov=True)

    for epoch in range(args.epochs):
        model.train()
        for spects, targets in train_loader:
            spects, targets = spects.to(device), targets.to(device)
            log_probs = model(spects).log_softmax(-1)
            in_lens = torch.full((spects.size(0),), log_probs.size(1), dtype=torch.long)
            tgt_lens = torch.full((spects.size(0),), targets.size(1), dtype=torch.long)
            loss = criterion(log_probs.transpose(0, 1), targets, in_lens, tgt_lens)
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 400.0)
            optimizer.step()

        total_err = 0.0
        with torch.no_grad():
            for spects, targets in test_loader:
                spects, targets = spects.to(device), targets.to(device)
                log_probs = model(spects).log_softmax(-1)  # expect: TCK114
                total_err += greedy_errors(log_probs, targets)
        print(f"epoch {epoch + 1}: test CER {100 * total_err / len(test_loader):.2f}")


if __name__ == "__main__":
    main()
