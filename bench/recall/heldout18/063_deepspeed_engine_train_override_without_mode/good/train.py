import torch
import torch.nn as nn
import torch.nn.functional as F

from engine import initialize


def run_epoch(model, batches, training):
    # works for plain modules and engines alike: nn.Module.train(mode)
    model.train(training)
    total = 0.0
    for x, y in batches:
        with torch.set_grad_enabled(training):
            loss = F.cross_entropy(model(x), y)
        if training:
            model.backward(loss)
            model.step()
        total += loss.item()
    return total / len(batches)


def main(epochs=3):
    net = nn.Sequential(nn.Linear(128, 256), nn.ReLU(), nn.Dropout(0.1), nn.Linear(256, 10))
    optimizer = torch.optim.AdamW(net.parameters(), lr=1e-3)
    engine = initialize(net, optimizer, gradient_accumulation_steps=2)
    train_batches = [(torch.randn(32, 128), torch.randint(0, 10, (32,))) for _ in range(50)]
    val_batches = [(torch.randn(32, 128), torch.randint(0, 10, (32,))) for _ in range(10)]
    for epoch in range(epochs):
        train_loss = run_epoch(engine, train_batches, training=True)
        val_loss = run_epoch(engine, val_batches, training=False)
        print(epoch, train_loss, val_loss)


if __name__ == "__main__":
    main()
