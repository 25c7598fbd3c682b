from collections import OrderedDict

import torch
import torch.nn as nn

from archs import CompactSR, PatchDiscriminator


class SRGANModel:
    def __init__(self, opt, device):
        self.opt = opt
        self.device = device
        self.use_amp = opt.get("use_amp", True)
        self.amp_dtype = torch.bfloat16 if opt.get("bfloat16", False) else torch.float16
        self.net_g = CompactSR(scale=opt["scale"]).to(device)
        self.net_d = PatchDiscriminator().to(device)
        self.optimizer_g = torch.optim.AdamW(self.net_g.parameters(), lr=opt["lr_g"])
        self.optimizer_d = torch.optim.AdamW(self.net_d.parameters(), lr=opt["lr_d"])
        self.scaler = torch.amp.GradScaler("cuda", enabled=self.use_amp)
        self.cri_pix = nn.L1Loss()
        self.cri_gan = nn.BCEWithLogitsLoss()
        self.gan_weight = opt.get("gan_weight", 0.1)

    def feed_data(self, lq, gt):
        self.lq = lq.to(self.device, non_blocking=True)
        self.gt = gt.to(self.device, non_blocking=True)

    def optimize_parameters(self, current_iter):
        loss_dict = OrderedDict()

        # optimize net_g
        for p in self.net_d.parameters():
            p.requires_grad = False
        self.optimizer_g.zero_grad(set_to_none=True)
        with torch.autocast(device_type="cuda", dtype=self.amp_dtype, enabled=self.use_amp):
            self.output = self.net_g(self.lq)
            l_g_pix = self.cri_pix(self.output, self.gt)
            fake_g_pred = self.net_d(self.output)
            l_g_gan = self.gan_weight * self.cri_gan(fake_g_pred, torch.ones_like(fake_g_pred))
            l_g_total = l_g_pix + l_g_gan
            loss_dict["l_g_pix"] = l_g_pix.detach()
            loss_dict["l_g_gan"] = l_g_gan.detach()
        self.scaler.scale(l_g_total).backward()
        self.scaler.step(self.optimizer_g)

        # optimize net_d
        for p in self.net_d.parameters():
            p.requires_grad = True
        self.optimizer_d.zero_grad(set_to_none=True)
        with torch.autocast(device_type="cuda", dtype=self.amp_dtype, enabled=self.use_amp):
            real_d_pred = self.net_d(self.gt)
            fake_d_pred = self.net_d(self.output.detach())
            l_d = self.cri_gan(real_d_pred, torch.ones_like(real_d_pred)) + self.cri_gan(
                fake_d_pred, torch.zeros_like(fake_d_pred))
        loss_dict["l_d"] = l_d.detach()
        self.scaler.scale(l_d).backward()
        self.scaler.step(self.optimizer_d)
        self.scaler.update()

        self.log_dict = {k: v.item() for k, v in loss_dict.items()}
        return self.log_dict

    def save(self, path, current_iter):
        torch.save({
            "iter": current_iter,
            "net_g": self.net_g.state_dict(),
            "net_d": self.net_d.state_dict(),
            "optimizer_g": self.optimizer_g.state_dict(),
            "optimizer_d": self.optimizer_d.state_dict(),
            "scaler": self.scaler.state_dict(),
        }, path)
