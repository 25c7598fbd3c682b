import argparse
import os

import torch
from torch.optim import Adam
from torch.utils.data import DataLoader, TensorDataset

from unet import UNet


def make_loaders(batch_size):
    images = torch.randn(64, 3, 64, 64)
    masks = torch.randint(0, 2, (64, 64, 64))
    train_set = TensorDataset(images[:48], masks[:48])
    val_set = TensorDataset(images[48:], masks[48:])
    return (
        DataLoader(train_set, batch_size=batch_size, shuffle=True, drop_last=True),
        DataLoader(val_set, batch_size=batch_size, drop_last=True),
    )


def train(loader, device, net, optimizer, criterion):
    net.train()
    running_loss = 0.0
    num_samples = 0
    for images, masks in loader:
        images = images.to(device)
        masks = masks.to(device)
        num_samples += images.size(0)

        optimizer.zero_grad()
        outputs = net(images)
        loss = criterion(outputs, masks)
        loss.backward()
        optimizer.step()

        running_loss += loss.item()
    return running_loss / num_samples


def validate(loader, device, net, criterion):
    net.eval()
    running_loss = 0.0
    correct = 0
    num_pixels = 0
    for images, masks in loader:
        images = images.to(device)
        masks = masks.to(device)

        outputs = net(images)  # expect: TCK113
        loss = criterion(outputs, masks)
        running_loss += loss.item()

        prediction = outputs.argmax(dim=1)
        correct += (prediction == masks).sum().item()
        num_pixels += masks.numel()
    return running_loss / len(loader), correct / num_pixels


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--batch-size", type=int, default=8)
    parser.add_argument("--checkpoint", default="checkpoints")
    args = parser.parse_args()

    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    net = UNet(num_classes=2).to(device)
    optimizer = Adam(net.parameters(), lr=1e-4, weight_decay=1e-4)
    criterion = torch.nn.CrossEntropyLoss().to(device)
    train_loader, val_loader = make_loaders(args.batch_size)

    os.makedirs(args.checkpoint, exist_ok=True)
    for epoch in range(args.epochs):
        train_loss = train(train_loader, device, net, optimizer, criterion)
        val_loss, val_acc = validate(val_loader, device, net, criterion)
        print(f"epoch {epoch + 1}: train {train_loss:.4f} val {val_loss:.4f} acc {val_acc:.3f}")
        path = os.path.join(args.checkpoint, f"checkpoint-{epoch + 1:05d}.pth")
        torch.save(net.state_dict(), path)


if __name__ == "__main__":
    main()
