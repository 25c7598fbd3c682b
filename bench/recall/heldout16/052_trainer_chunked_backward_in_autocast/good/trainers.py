import torch
from torch import nn

from models import Decoder, DiffusionPrior


def split_batch(x, max_batch_size):
    total = x.shape[0]
    for chunk in x.split(max_batch_size):
        yield chunk.shape[0] / total, chunk


def split_pair(a, b, max_batch_size):
    total = a.shape[0]
    for a_chunk, b_chunk in zip(a.split(max_batch_size), b.split(max_batch_size)):
        yield a_chunk.shape[0] / total, (a_chunk, b_chunk)


class PriorTrainer(nn.Module):
    def __init__(self, prior: DiffusionPrior, lr=3e-4, amp=True, max_grad_norm=None):
        super().__init__()
        self.prior = prior
        self.amp = amp
        self.max_grad_norm = max_grad_norm
        self.optimizer = torch.optim.AdamW(prior.parameters(), lr=lr)
        self.scaler = torch.amp.GradScaler("cuda", enabled=amp)

    def update(self):
        if self.max_grad_norm is not None:
            self.scaler.unscale_(self.optimizer)
            nn.utils.clip_grad_norm_(self.prior.parameters(), self.max_grad_norm)
        self.scaler.step(self.optimizer)
        self.scaler.update()
        self.optimizer.zero_grad()

    def forward(self, text_embed, image_embed, max_batch_size=None):
        total_loss = 0.0
        max_batch_size = max_batch_size or text_embed.shape[0]
        for frac, (t_chunk, i_chunk) in split_pair(text_embed, image_embed, max_batch_size):
            with torch.amp.autocast("cuda", enabled=self.amp):
                loss = self.prior(t_chunk, i_chunk) * frac
            total_loss += loss.item()
            self.scaler.scale(loss).backward()
        return total_loss


class DecoderTrainer(nn.Module):
    def __init__(self, decoder: Decoder, lr=1e-4, amp=True):
        super().__init__()
        self.decoder = decoder
        self.amp = amp
        self.optimizers = [torch.optim.AdamW(u.parameters(), lr=lr) for u in decoder.unets]
        self.scalers = [torch.amp.GradScaler("cuda", enabled=amp) for _ in decoder.unets]

    def scale(self, loss, unet_number):
        return self.scalers[unet_number - 1].scale(loss)

    def update(self, unet_number):
        idx = unet_number - 1
        self.scalers[idx].step(self.optimizers[idx])
        self.scalers[idx].update()
        self.optimizers[idx].zero_grad()

    def forward(self, images, unet_number, max_batch_size=None):
        total_loss = 0.0
        max_batch_size = max_batch_size or images.shape[0]
        for frac, chunk in split_batch(images, max_batch_size):
            with torch.amp.autocast("cuda", enabled=self.amp):
                loss = self.decoder(chunk, unet_number=unet_number) * frac
            total_loss += loss.item()
            self.scale(loss, unet_number=unet_number).backward()
        return total_loss
