import torch
from torch.utils.data import DataLoader, TensorDataset

import train
from model import Classifier, Discriminator, Extractor


def fake_loader(channels, n=256):
    x = torch.rand(n, channels, 28, 28)
    y = torch.randint(0, 10, (n,))
    return DataLoader(TensorDataset(x, y), batch_size=32, shuffle=True, drop_last=True, num_workers=2)


def accuracy(encoder, classifier, loader, device, gray):
    encoder.eval()
    classifier.eval()
    correct = total = 0
    with torch.no_grad():
        for x, y in loader:
            if gray:
                x = torch.cat((x, x, x), 1)
            pred = classifier(encoder(x.to(device))).argmax(dim=1)
            correct += (pred.cpu() == y).sum().item()
            total += y.numel()
    return correct / total


def main():
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    source_loader = fake_loader(1)   # MNIST
    target_loader = fake_loader(3)   # MNIST-M
    encoder = Extractor().to(device)
    classifier = Classifier().to(device)
    discriminator = Discriminator().to(device)
    train.dann(encoder, classifier, discriminator, source_loader, target_loader, device, epochs=2)
    print("target accuracy", accuracy(encoder, classifier, target_loader, device, gray=False))


if __name__ == "__main__":
    main()
