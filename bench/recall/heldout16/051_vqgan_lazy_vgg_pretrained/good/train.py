import torch
from torch.utils.data import DataLoader
from torchvision import datasets, transforms

from vae import ConvVAE


def main():
    device = "cuda" if torch.cuda.is_available() else "cpu"
    tfm = transforms.Compose([transforms.Resize(224), transforms.CenterCrop(224), transforms.ToTensor()])
    loader = DataLoader(datasets.ImageFolder("data/train", tfm), batch_size=8, shuffle=True, num_workers=4)
    vae = ConvVAE().to(device)
    optimizer = torch.optim.Adam(vae.parameters(), lr=3e-4)
    for epoch in range(10):
        for img, _ in loader:
            img = img.to(device)
            loss = vae(img, return_loss=True)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        torch.save(vae.state_dict(), f"vae_{epoch}.pt")


if __name__ == "__main__":
    main()
