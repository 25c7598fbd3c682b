import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

from tensor_utils import ensure_tensor


def class_balanced_weights(labels, num_classes):
    counts = torch.bincount(labels, minlength=num_classes).float()
    inverse = counts.sum() / (num_classes * counts.clamp(min=1))
    return ensure_tensor(inverse)  # expect: TCK704


def main():
    features = torch.randn(1000, 20)
    labels = torch.randint(0, 4, (1000,))
    loader = DataLoader(TensorDataset(features, labels), batch_size=32, shuffle=True)

    model = nn.Sequential(nn.Linear(20, 64), nn.ReLU(), nn.Linear(64, 4))
    weights = class_balanced_weights(labels, 4)
    criterion = nn.CrossEntropyLoss(weight=weights)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    margin = ensure_tensor(0.1)

    for epoch in range(5):
        for x, y in loader:
            optimizer.zero_grad()
            logits = model(x)
            loss = criterion(logits, y) + margin * logits.pow(2).mean()
            loss.backward()
            optimizer.step()
        print(f"epoch {epoch}: loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
