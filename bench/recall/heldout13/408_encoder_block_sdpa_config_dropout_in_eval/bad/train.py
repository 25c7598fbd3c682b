import torch
from torch.nn import functional as F

from modeling import EncoderConfig, TextEncoder


def evaluate(model, batches):
    model.eval()
    correct = total = 0
    with torch.no_grad():
        for ids, mask, labels in batches:
            correct += (model(ids, mask).argmax(-1) == labels).sum().item()
            total += labels.numel()
    model.train()
    return correct / total


def main():
    config = EncoderConfig()
    model = TextEncoder(config)
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4)
    make = lambda: (torch.randint(0, 8000, (32, 48)), torch.ones(32, 48, dtype=torch.bool), torch.randint(0, 3, (32,)))
    train_batches = [make() for _ in range(50)]
    val_batches = [make() for _ in range(10)]
    for epoch in range(3):
        model.train()
        for ids, mask, labels in train_batches:
            loss = F.cross_entropy(model(ids, mask), labels)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        print(epoch, evaluate(model, val_batches))


if __name__ == "__main__":
    main()
