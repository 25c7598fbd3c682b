import torch
import torch.nn as nn

from epicsounds import construct_loader


def build_model(cfg):
    return nn.Sequential(
        nn.Conv2d(1, 16, 3, padding=1),
        nn.ReLU(),
        nn.AdaptiveAvgPool2d(1),
        nn.Flatten(),
        nn.Linear(16, cfg["num_classes"]),
    )


def train(cfg):
    model = build_model(cfg)
    optimizer = torch.optim.SGD(model.parameters(), lr=cfg["lr"], momentum=0.9)
    criterion = nn.CrossEntropyLoss()
    train_loader = construct_loader(cfg, "train")
    for epoch in range(cfg["epochs"]):
        model.train()
        for spectrograms, labels in train_loader:
            optimizer.zero_grad()
            loss = criterion(model(spectrograms), labels)
            loss.backward()
            optimizer.step()
        print(f"epoch {epoch} loss {loss.item():.4f}")


if __name__ == "__main__":
    train({"n_mels": 128, "frames": 400, "num_classes": 44, "batch_size": 8,
           "num_workers": 2, "lr": 0.01, "epochs": 2})
