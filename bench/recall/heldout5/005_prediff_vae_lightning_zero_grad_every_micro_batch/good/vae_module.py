import pytorch_lightning as pl
import torch


class VAESEVIRPLModule(pl.LightningModule):
    def __init__(self, vae, loss, accumulate_grad_batches=4, lr=1e-4):
        super().__init__()
        self.vae = vae
        self.loss = loss
        self.accumulate_grad_batches = accumulate_grad_batches
        self.lr = lr
        self.automatic_optimization = False

    def training_step(self, batch, batch_idx):
        opt_ae, opt_disc = self.optimizers()
        recon, posterior = self.vae(batch)

        aeloss, _ = self.loss(batch, recon, posterior, optimizer_idx=0, global_step=self.global_step)
        self.manual_backward(aeloss / self.accumulate_grad_batches)
        if (batch_idx + 1) % self.accumulate_grad_batches == 0:
            opt_ae.step()
            opt_ae.zero_grad()

        discloss, _ = self.loss(batch, recon.detach(), posterior, optimizer_idx=1, global_step=self.global_step)
        self.manual_backward(discloss / self.accumulate_grad_batches)
        if (batch_idx + 1) % self.accumulate_grad_batches == 0:
            opt_disc.step()
            opt_disc.zero_grad()
        self.log("train/aeloss", aeloss.detach())

    def configure_optimizers(self):
        opt_ae = torch.optim.Adam(self.vae.parameters(), lr=self.lr, betas=(0.5, 0.9))
        opt_disc = torch.optim.Adam(self.loss.discriminator.parameters(), lr=self.lr, betas=(0.5, 0.9))
        return [opt_ae, opt_disc]
