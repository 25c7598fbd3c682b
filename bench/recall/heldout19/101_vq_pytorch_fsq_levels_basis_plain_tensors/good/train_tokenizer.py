import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

from fsq import FSQ


class ImageTokenizer(nn.Module):
    def __init__(self, levels=(8, 5, 5, 5)):
        super().__init__()
        self.encoder = nn.Sequential(
            nn.Conv2d(3, 64, 4, stride=2, padding=1), nn.GELU(),
            nn.Conv2d(64, len(levels), 4, stride=2, padding=1),
        )
        self.quantizer = FSQ(list(levels))
        self.decoder = nn.Sequential(
            nn.ConvTranspose2d(len(levels), 64, 4, stride=2, padding=1), nn.GELU(),
            nn.ConvTranspose2d(64, 3, 4, stride=2, padding=1),
        )

    def forward(self, images):
        z = self.encoder(images).permute(0, 2, 3, 1)
        zhat, indices = self.quantizer(z)
        recon = self.decoder(zhat.permute(0, 3, 1, 2))
        return recon, indices


def main(epochs=10):
    device = torch.device("cuda")
    model = ImageTokenizer().to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4)
    loader = DataLoader(TensorDataset(torch.rand(512, 3, 64, 64)), batch_size=32, shuffle=True)

    model.train()
    for epoch in range(epochs):
        for (images,) in loader:
            images = images.to(device)
            recon, indices = model(images)
            loss = F.mse_loss(recon, images)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        print(f"epoch {epoch}: loss {loss.item():.4f}, codes used {indices.unique().numel()}")


if __name__ == "__main__":
    main()
