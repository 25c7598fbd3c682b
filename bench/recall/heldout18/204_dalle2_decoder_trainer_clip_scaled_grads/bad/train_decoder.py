import torch
import torch.nn.functional as F
from torch import nn

from trainer import DecoderTrainer


class TinyUnet(nn.Module):
    def __init__(self, dim=64, channels=3):
        super().__init__()
        self.net = nn.Sequential(
            nn.Conv2d(channels + 1, dim, 3, padding=1), nn.SiLU(),
            nn.Conv2d(dim, dim, 3, padding=1), nn.SiLU(),
            nn.Conv2d(dim, channels, 3, padding=1),
        )

    def forward(self, x, t):
        t_map = t.view(-1, 1, 1, 1).expand(-1, 1, *x.shape[2:])
        return self.net(torch.cat([x, t_map], dim=1))


class Decoder(nn.Module):
    def __init__(self, image_sizes=(64, 128), timesteps=1000):
        super().__init__()
        self.unets = nn.ModuleList([TinyUnet() for _ in image_sizes])
        self.image_sizes = image_sizes
        betas = torch.linspace(1e-4, 0.02, timesteps)
        self.register_buffer("alphas_cumprod", torch.cumprod(1.0 - betas, dim=0))

    def forward(self, images, *, unet_number):
        size = self.image_sizes[unet_number - 1]
        x0 = F.interpolate(images, size=(size, size), mode="bilinear", align_corners=False)
        t = torch.randint(0, len(self.alphas_cumprod), (x0.shape[0],), device=x0.device)
        a = self.alphas_cumprod[t].view(-1, 1, 1, 1)
        noise = torch.randn_like(x0)
        noisy = a.sqrt() * x0 + (1 - a).sqrt() * noise
        pred = self.unets[unet_number - 1](noisy, t.float() / len(self.alphas_cumprod))
        return F.mse_loss(pred, noise)


def main(loader, epochs=10, device="cuda"):
    decoder = Decoder().to(device)
    trainer = DecoderTrainer(decoder, lr=3e-4, max_grad_norm=0.5, amp=True).to(device)
    for epoch in range(epochs):
        for images in loader:
            images = images.to(device)
            for unet_number in (1, 2):
                loss = trainer(images, unet_number=unet_number)
                loss.backward()
                trainer.update(unet_number)
        torch.save(decoder.state_dict(), f"decoder_{epoch}.pt")


if __name__ == "__main__":
    data = torch.rand(64, 3, 128, 128)
    main(torch.utils.data.DataLoader(data, batch_size=8, shuffle=True))
