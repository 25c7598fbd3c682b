import torch
from torch.nn import functional as F

from networks import Discriminator, Generator


class Trainer:
    def __init__(self, G, D, data, latent_size=64, batch_size=32, subdivisions=4, world_size=None):
        self.G, self.D = G, D
        self.data = data
        self.latent_size = latent_size
        self.device_batch_size = batch_size // subdivisions
        self.subdivisions = subdivisions
        self.world_size = world_size
        self.G_opt = torch.optim.Adam(G.parameters(), lr=2e-3, betas=(0.0, 0.99))
        self.D_opt = torch.optim.Adam(D.parameters(), lr=2e-3, betas=(0.0, 0.99))
        self.seen = 0

    def _get_batch(self):
        idx = torch.randint(0, self.data.shape[0], (self.device_batch_size,))
        return self.data[idx]

    def _latents(self):
        return torch.randn(self.device_batch_size, self.latent_size)

    def _backward(self, loss, opt, mul=1):
        """Scale the loss by the subdivisions and world size, then backpropagate it."""
        mul /= self.subdivisions
        mul /= self.world_size or 1
        if mul != 1:
            loss = loss * mul
        loss.backward()
        return loss.item() * (self.world_size or 1)

    def train(self, iterations):
        for _ in range(iterations):
            self.D.requires_grad_(False)
            self.G_opt.zero_grad()
            G_loss = 0
            for _ in range(self.subdivisions):
                fake_scores = self.D(self.G(self._latents()))
                loss = F.softplus(-fake_scores).mean()
                G_loss += self._backward(loss, self.G_opt)
            self.G_opt.step()
            self.D.requires_grad_(True)

            self.G.requires_grad_(False)
            self.D_opt.zero_grad()
            D_loss = 0
            for _ in range(self.subdivisions):
                fake_scores = self.D(self.G(self._latents()))
                real_scores = self.D(self._get_batch())
                loss = (F.softplus(fake_scores) + F.softplus(-real_scores)).mean()
                D_loss += self._backward(loss, self.D_opt)
                D_loss += loss.item()
            self.D_opt.step()
            self.G.requires_grad_(True)

            self.seen += 1
            if self.seen % 10 == 0:
                print(f"{self.seen}: G_loss={float(G_loss):.4f} D_loss={float(D_loss):.4f}")


if __name__ == "__main__":
    trainer = Trainer(Generator(), Discriminator(), torch.randn(1024, 256))
    trainer.train(50)
