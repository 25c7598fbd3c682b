import torch
import torch.nn as nn
import torch.nn.functional as F

from base_process import BaseTrainProcess


class TinyDenoiser(nn.Module):
    def __init__(self, channels=4, width=64):
        super().__init__()
        self.net = nn.Sequential(
            nn.Conv2d(channels + 1, width, 3, padding=1), nn.SiLU(),
            nn.Conv2d(width, width, 3, padding=1), nn.SiLU(),
            nn.Conv2d(width, channels, 3, padding=1),
        )

    def forward(self, noisy, t):
        t_map = t.view(-1, 1, 1, 1).expand(-1, 1, *noisy.shape[-2:])
        return self.net(torch.cat([noisy, t_map], dim=1))


class SDTrainer(BaseTrainProcess):
    def __init__(self, dataset, steps, lr=1e-4, max_grad_norm=1.0, **kwargs):
        super().__init__(dataset, steps, **kwargs)
        self.device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        self.unet = TinyDenoiser().to(self.device)
        self.params = list(self.unet.parameters())
        self.optimizer = torch.optim.AdamW(self.params, lr=lr)
        self.lr_scheduler = torch.optim.lr_scheduler.LambdaLR(self.optimizer, lambda s: min(1.0, (s + 1) / 100))
        self.max_grad_norm = max_grad_norm

    def train_single_accumulation(self, latents):
        latents = latents.to(self.device)
        noise = torch.randn_like(latents)
        t = torch.rand(latents.shape[0], device=self.device)
        noisy = (1 - t.view(-1, 1, 1, 1)) * latents + t.view(-1, 1, 1, 1) * noise
        pred = self.unet(noisy, t)
        loss = F.mse_loss(pred, noise - latents)
        loss.backward()
        return loss.detach()

    def hook_train_loop(self, batch):
        batch_list = batch if isinstance(batch, list) else [batch]
        total_loss = None
        for micro in batch_list:
            self.optimizer.zero_grad(set_to_none=True)  # expect: TCK111
            loss = self.train_single_accumulation(micro)
            total_loss = loss if total_loss is None else total_loss + loss

        if not self.is_grad_accumulation_step:
            torch.nn.utils.clip_grad_norm_(self.params, self.max_grad_norm)
            self.optimizer.step()
            self.optimizer.zero_grad(set_to_none=True)
            self.lr_scheduler.step()
        return total_loss
