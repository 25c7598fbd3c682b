import argparse

import torch
from torch import optim
from torch.utils.data import DataLoader
from torchvision import datasets, transforms
from torchvision.utils import save_image

from model import VAE, loss_function


def train(model, loader, optimizer, device, epoch):
    model.train()
    train_loss = 0.0
    for data, _ in loader:
        data = data.to(device)
        optimizer.zero_grad()
        recon_batch, mu, logvar = model(data)
        loss = loss_function(recon_batch, data, mu, logvar)
        loss.backward()
        train_loss += loss.item()
        optimizer.step()
    print("epoch {} average loss {:.4f}".format(epoch, train_loss / len(loader.dataset)))


def test(model, loader, device):
    model.eval()
    test_loss = 0.0
    with torch.no_grad():
        for data, _ in loader:
            data = data.to(device)
            recon_batch, mu, logvar = model(data)
            test_loss += loss_function(recon_batch, data, mu, logvar).item()
    return test_loss / len(loader.dataset)


def main():
    parser = argparse.ArgumentParser(description="VAE MNIST example")
    parser.add_argument("--batch-size", type=int, default=128)
    parser.add_argument("--epochs", type=int, default=10)
    args = parser.parse_args()

    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    train_loader = DataLoader(
        datasets.MNIST("../data", train=True, download=True, transform=transforms.ToTensor()),
        batch_size=args.batch_size, shuffle=True, num_workers=1, pin_memory=True,
    )
    test_loader = DataLoader(
        datasets.MNIST("../data", train=False, transform=transforms.ToTensor()),
        batch_size=args.batch_size, shuffle=False, num_workers=1, pin_memory=True,
    )
    model = VAE().to(device)
    optimizer = optim.Adam(model.parameters(), lr=1e-3)
    for epoch in range(1, args.epochs + 1):
        train(model, train_loader, optimizer, device, epoch)
        print("test loss {:.4f}".format(test(model, test_loader, device)))
        with torch.no_grad():
            sample = model.decode(torch.randn(64, 20, device=device)).cpu()
            save_image(sample.view(64, 1, 28, 28), "sample_" + str(epoch) + ".png")


if __name__ == "__main__":
    main()
