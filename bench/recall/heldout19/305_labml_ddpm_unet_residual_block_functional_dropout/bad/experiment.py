import torch
import torchvision
from torch.utils.data import DataLoader
from torchvision import transforms

from ddpm import DenoiseDiffusion
from unet import UNet


def sample(diffusion, n_samples, image_size, device):
    diffusion.eps_model.eval()
    x = torch.randn(n_samples, 3, image_size, image_size, device=device)
    for t_ in reversed(range(diffusion.n_steps)):
        t = torch.full((n_samples,), t_, device=device, dtype=torch.long)
        x = diffusion.p_sample(x, t)
    diffusion.eps_model.train()
    return x


def main(epochs=10, batch_size=64, n_steps=1000, image_size=32, lr=2e-5):
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    dataset = torchvision.datasets.CIFAR10("data", train=True, download=True, transform=transforms.Compose([
        transforms.RandomHorizontalFlip(), transforms.ToTensor(), transforms.Normalize((0.5,) * 3, (0.5,) * 3)]))
    loader = DataLoader(dataset, batch_size=batch_size, shuffle=True, num_workers=4, drop_last=True)

    eps_model = UNet(image_channels=3, n_channels=32).to(device)
    diffusion = DenoiseDiffusion(eps_model, n_steps, device)
    optimizer = torch.optim.Adam(eps_model.parameters(), lr=lr)

    for epoch in range(epochs):
        for images, _ in loader:
            images = images.to(device)
            optimizer.zero_grad()
            loss = diffusion.loss(images)
            loss.backward()
            optimizer.step()
        samples = sample(diffusion, 16, image_size, device)
        torchvision.utils.save_image((samples + 1) / 2, f"samples_{epoch}.png")
        torch.save({"model": eps_model.state_dict(), "optimizer": optimizer.state_dict(), "epoch": epoch},
                   "checkpoint.pt")


if __name__ == "__main__":
    main()
