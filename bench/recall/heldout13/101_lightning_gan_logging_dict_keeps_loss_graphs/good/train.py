import pytorch_lightning as pl
import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

from models import Discriminator, Generator


class WellLogGAN(pl.LightningModule):
    def __init__(self, latent_dim=64, data_dim=32, lr=2e-4, z_weight=0.1):
        super().__init__()
        self.save_hyperparameters()
        self.generator = Generator(latent_dim, data_dim)
        self.discriminator = Discriminator(data_dim)
        self.logging_dict = {
            "g_loss": [],
            "g_adv_loss": [],
            "g_rec_loss": [],
            "d_loss": [],
        }

    def forward(self, z):
        return self.generator(z)

    def training_step(self, batch, batch_idx, optimizer_idx):
        (real,) = batch
        z = torch.randn(real.size(0), self.hparams.latent_dim, device=self.device)

        if optimizer_idx == 0:
            fake = self(z)
            logits = self.discriminator(fake)
            g_adv_loss = F.binary_cross_entropy_with_logits(logits, torch.ones_like(logits))
            g_rec_loss = F.l1_loss(fake.mean(0), real.mean(0))
            g_loss = g_adv_loss + self.hparams.z_weight * g_rec_loss
            self.logging_dict["g_loss"].append(g_loss.detach())
            self.logging_dict["g_adv_loss"].append(g_adv_loss.detach())
            self.logging_dict["g_rec_loss"].append(g_rec_loss.detach())
            return g_loss

        real_logits = self.discriminator(real)
        fake_logits = self.discriminator(self(z).detach())
        d_loss = 0.5 * (
            F.binary_cross_entropy_with_logits(real_logits, torch.ones_like(real_logits))
            + F.binary_cross_entropy_with_logits(fake_logits, torch.zeros_like(fake_logits))
        )
        self.logging_dict["d_loss"].append(d_loss.detach())
        return d_loss

    def on_train_epoch_end(self):
        for name, values in self.logging_dict.items():
            if values:
                self.log(name, torch.stack(values).mean())
            values.clear()

    def configure_optimizers(self):
        lr = self.hparams.lr
        opt_g = torch.optim.Adam(self.generator.parameters(), lr=lr, betas=(0.5, 0.999))
        opt_d = torch.optim.Adam(self.discriminator.parameters(), lr=lr, betas=(0.5, 0.999))
        return [opt_g, opt_d], []


def main():
    data = torch.randn(4096, 32)
    loader = DataLoader(TensorDataset(data), batch_size=128, shuffle=True, num_workers=2)
    model = WellLogGAN()
    trainer = pl.Trainer(max_epochs=50, accelerator="auto", devices=1)
    trainer.fit(model, loader)


if __name__ == "__main__":
    main()
