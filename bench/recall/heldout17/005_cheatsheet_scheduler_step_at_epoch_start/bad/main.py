import torch
import torch.nn as nn
import torch.optim as optim
from torch.utils.data import DataLoader, TensorDataset

from engine import evaluate, train_one_epoch


def build_model(num_classes=10):
    return nn.Sequential(
        nn.Conv2d(3, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(32, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU(), nn.AdaptiveAvgPool2d(1),
        nn.Flatten(), nn.Linear(64, num_classes),
    )


def main(epochs=90, device="cuda" if torch.cuda.is_available() else "cpu"):
    train_set = TensorDataset(torch.randn(2048, 3, 32, 32), torch.randint(0, 10, (2048,)))
    val_set = TensorDataset(torch.randn(512, 3, 32, 32), torch.randint(0, 10, (512,)))
    train_loader = DataLoader(train_set, batch_size=128, shuffle=True)
    val_loader = DataLoader(val_set, batch_size=256)

    model = build_model().to(device)
    criterion = nn.CrossEntropyLoss()
    optimizer = optim.SGD(model.parameters(), lr=0.1, momentum=0.9, weight_decay=5e-4)
    scheduler = optim.lr_scheduler.StepLR(optimizer, step_size=30, gamma=0.1)

    for epoch in range(epochs):
        scheduler.step()  # expect: TCK104
        train_loss = train_one_epoch(model, train_loader, criterion, optimizer, device)
        acc = evaluate(model, val_loader, device)
        print(f"epoch {epoch} lr {scheduler.get_last_lr()[0]:.4f} loss {train_loss:.3f} acc {acc:.3f}")


if __name__ == "__main__":
    main()
