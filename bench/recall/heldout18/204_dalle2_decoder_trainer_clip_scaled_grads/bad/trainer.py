import torch
from torch import nn
from torch.amp import GradScaler, autocast


def exists(val):
    return val is not None


class EMA(nn.Module):
    def __init__(self, model, beta=0.99):
        super().__init__()
        import copy
        self.beta = beta
        self.online_model = model
        self.ema_model = copy.deepcopy(model)
        self.ema_model.requires_grad_(False)

    @torch.no_grad()
    def update(self):
        for ema_p, p in zip(self.ema_model.parameters(), self.online_model.parameters()):
            ema_p.lerp_(p, 1 - self.beta)


class DecoderTrainer(nn.Module):
    """Wraps a cascaded diffusion decoder: one optimizer and one grad scaler per U-Net."""

    def __init__(self, decoder, lr=1e-4, wd=1e-2, max_grad_norm=None, amp=False, use_ema=True):
        super().__init__()
        self.decoder = decoder
        self.num_unets = len(decoder.unets)
        self.amp = amp
        self.use_ema = use_ema
        self.ema_unets = nn.ModuleList([])
        for ind, unet in enumerate(decoder.unets):
            optimizer = torch.optim.AdamW(unet.parameters(), lr=lr, weight_decay=wd)
            setattr(self, f"optim{ind}", optimizer)
            setattr(self, f"scaler{ind}", GradScaler("cuda", enabled=amp))
            if use_ema:
                self.ema_unets.append(EMA(unet))
        self.max_grad_norm = max_grad_norm

    def scale(self, loss, *, unet_number):
        scaler = getattr(self, f"scaler{unet_number - 1}")
        return scaler.scale(loss)

    def update(self, unet_number):
        index = unet_number - 1
        unet = self.decoder.unets[index]

        if exists(self.max_grad_norm):
            nn.utils.clip_grad_norm_(unet.parameters(), self.max_grad_norm)  # expect: TCK305

        optimizer = getattr(self, f"optim{index}")
        scaler = getattr(self, f"scaler{index}")

        scaler.step(optimizer)
        scaler.update()
        optimizer.zero_grad()

        if self.use_ema:
            self.ema_unets[index].update()

    def forward(self, images, *, unet_number, divisor=1, **kwargs):
        with autocast("cuda", enabled=self.amp):
            loss = self.decoder(images, unet_number=unet_number, **kwargs)
        return self.scale(loss / divisor, unet_number=unet_number)
