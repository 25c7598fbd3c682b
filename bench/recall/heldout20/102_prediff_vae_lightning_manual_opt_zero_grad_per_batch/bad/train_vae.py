import lightning.pytorch as pl
import torch
import torch.nn as nn
from einops import rearrange

from vae_losses import RecKLWithDiscriminator


class DiagonalGaussian:
    def __init__(self, moments):
        self.mean, self.logvar = moments.chunk(2, dim=1)
        self.logvar = self.logvar.clamp(-30.0, 20.0)

    def sample(self):
        return self.mean + torch.exp(0.5 * self.logvar) * torch.randn_like(self.mean)

    def kl(self):
        return 0.5 * (self.mean.pow(2) + self.logvar.exp() - 1.0 - self.logvar).sum(dim=(1, 2, 3))


class TinyAutoencoderKL(nn.Module):
    def __init__(self, in_channels=1, latent_channels=4, width=32):
        super().__init__()
        self.encoder = nn.Sequential(nn.Conv2d(in_channels, width, 3, stride=2, padding=1), nn.SiLU(),
                                     nn.Conv2d(width, 2 * latent_channels, 3, padding=1))
        self.decoder = nn.Sequential(nn.ConvTranspose2d(latent_channels, width, 4, stride=2, padding=1), nn.SiLU())
        self.conv_out = nn.Conv2d(width, in_channels, 3, padding=1)

    def forward(self, x):
        posterior = DiagonalGaussian(self.encoder(x))
        return self.conv_out(self.decoder(posterior.sample())), posterior


class VAEPLModule(pl.LightningModule):
    def __init__(self, total_num_steps, accumulate_grad_batches=1, lr=1e-4, gradient_clip_val=1.0):
        super().__init__()
        self.torch_nn_module = TinyAutoencoderKL()
        self.loss = RecKLWithDiscriminator()
        self.total_num_steps = total_num_steps
        self.lr = lr
        self.gradient_clip_val = gradient_clip_val
        self.automatic_optimization = False
        self.accumulate_grad_batches = accumulate_grad_batches

    def configure_optimizers(self):
        opt_ae = torch.optim.Adam(self.torch_nn_module.parameters(), lr=self.lr, betas=(0.5, 0.9))
        opt_disc = torch.optim.Adam(self.loss.discriminator.parameters(), lr=self.lr, betas=(0.5, 0.9))
        sch_ae = torch.optim.lr_scheduler.CosineAnnealingLR(opt_ae, T_max=self.total_num_steps)
        sch_disc = torch.optim.lr_scheduler.CosineAnnealingLR(opt_disc, T_max=self.total_num_steps)
        return [opt_ae, opt_disc], [sch_ae, sch_disc]

    def training_step(self, batch, batch_idx):
        g_opt, d_opt = self.optimizers()
        g_sch, d_sch = self.lr_schedulers()
        target = rearrange(batch, "b 1 h w c -> b c h w").contiguous()
        pred, posterior = self.torch_nn_module(target)

        aeloss, log_ae = self.loss(target, pred, posterior, optimizer_idx=0, global_step=self.global_step)
        self.log("aeloss", aeloss, prog_bar=True)
        self.log_dict(log_ae)
        g_opt.zero_grad()  # expect: TCK111
        self.manual_backward(aeloss)
        if (batch_idx + 1) % self.accumulate_grad_batches == 0:
            self.clip_gradients(g_opt, gradient_clip_val=self.gradient_clip_val, gradient_clip_algorithm="norm")
            g_opt.step()
            g_sch.step()

        discloss, log_disc = self.loss(target, pred, posterior, optimizer_idx=1, global_step=self.global_step)
        self.log("discloss", discloss, prog_bar=True)
        self.log_dict(log_disc)
        d_opt.zero_grad()  # expect: TCK111
        self.manual_backward(discloss)
        if (batch_idx + 1) % self.accumulate_grad_batches == 0:
            self.clip_gradients(d_opt, gradient_clip_val=self.gradient_clip_val, gradient_clip_algorithm="norm")
            d_opt.step()
            d_sch.step()


def main(train_loader, micro_batch_size=8, total_batch_size=32, gpus=1, max_steps=10000):
    accumulate_grad_batches = total_batch_size // (micro_batch_size * gpus)
    module = VAEPLModule(total_num_steps=max_steps, accumulate_grad_batches=accumulate_grad_batches)
    trainer = pl.Trainer(max_steps=max_steps * accumulate_grad_batches, devices=gpus)
    trainer.fit(module, train_dataloaders=train_loader)
