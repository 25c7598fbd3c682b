import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

from vit import VisionTransformer


def evaluate(model, loader, device):
    model.eval()
    correct = total = 0
    with torch.no_grad():
        for images, labels in loader:
            images, labels = images.to(device), labels.to(device)
            correct += (model(images).argmax(dim=-1) == labels).sum().item()
            total += labels.numel()
    return correct / total


def main():
    device = "cuda" if torch.cuda.is_available() else "cpu"
    train_set = TensorDataset(torch.randn(512, 3, 32, 32), torch.randint(0, 10, (512,)))
    val_set = TensorDataset(torch.randn(128, 3, 32, 32), torch.randint(0, 10, (128,)))
    train_loader = DataLoader(train_set, batch_size=64, shuffle=True)
    val_loader = DataLoader(val_set, batch_size=64)
    model = VisionTransformer(attn_drop_rate=0.1).to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4, weight_decay=0.05)
    for epoch in range(3):
        model.train()
        for images, labels in train_loader:
            images, labels = images.to(device), labels.to(device)
            loss = F.cross_entropy(model(images), labels)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        print(epoch, "val acc", evaluate(model, val_loader, device))


if __name__ == "__main__":
    main()
