import torch
from torch.utils.data import DataLoader, TensorDataset

from model import AttClsModel


def evaluate(model, loader, device):
    model.eval()
    correct, total = 0, 0
    with torch.no_grad():
        for images, labels in loader:
            images, labels = images.to(device), labels.to(device)
            preds = (torch.sigmoid(model(images)) > 0.5).float()
            correct += (preds == labels).sum().item()
            total += labels.numel()
    model.train()
    return correct / max(total, 1)


def main():
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = AttClsModel().to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-4)
    data = TensorDataset(torch.randn(64, 3, 112, 112), torch.randint(0, 2, (64, 40)).float())
    train_loader = DataLoader(data, batch_size=16, shuffle=True, num_workers=2)
    val_loader = DataLoader(data, batch_size=32, num_workers=2)
    for epoch in range(3):
        model.train()
        for images, labels in train_loader:
            images, labels = images.to(device), labels.to(device)
            loss = model(images, labels)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        print(f"epoch {epoch}: val acc {evaluate(model, val_loader, device):.4f}")


if __name__ == "__main__":
    main()
