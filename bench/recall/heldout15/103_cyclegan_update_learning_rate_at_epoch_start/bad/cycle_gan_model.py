import itertools

import torch
import torch.nn as nn

from base_model import BaseModel


def conv_block(cin, cout):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1), nn.InstanceNorm2d(cout, affine=True), nn.ReLU(True))


class Generator(nn.Module):
    def __init__(self, ch=3, width=64):
        super().__init__()
        self.body = nn.Sequential(conv_block(ch, width), conv_block(width, width), nn.Conv2d(width, ch, 3, padding=1), nn.Tanh())

    def forward(self, x):
        return self.body(x)


class Discriminator(nn.Module):
    def __init__(self, ch=3, width=64):
        super().__init__()
        self.body = nn.Sequential(
            nn.Conv2d(ch, width, 4, stride=2, padding=1), nn.LeakyReLU(0.2, True),
            nn.Conv2d(width, 1, 4, padding=1),
        )

    def forward(self, x):
        return self.body(x)


class CycleGANModel(BaseModel):
    def __init__(self, opt):
        super().__init__(opt)
        self.model_names = ["G_A", "G_B", "D_A", "D_B"]
        self.netG_A = Generator().to(self.device)
        self.netG_B = Generator().to(self.device)
        self.netD_A = Discriminator().to(self.device)
        self.netD_B = Discriminator().to(self.device)
        self.criterionGAN = nn.MSELoss()
        self.criterionCycle = nn.L1Loss()
        self.optimizer_G = torch.optim.Adam(
            itertools.chain(self.netG_A.parameters(), self.netG_B.parameters()), lr=opt.lr, betas=(0.5, 0.999)
        )
        self.optimizer_D = torch.optim.Adam(
            itertools.chain(self.netD_A.parameters(), self.netD_B.parameters()), lr=opt.lr, betas=(0.5, 0.999)
        )
        self.optimizers = [self.optimizer_G, self.optimizer_D]

    def set_input(self, batch):
        self.real_A = batch["A"].to(self.device)
        self.real_B = batch["B"].to(self.device)

    def gan_loss(self, pred, is_real):
        target = torch.ones_like(pred) if is_real else torch.zeros_like(pred)
        return self.criterionGAN(pred, target)

    def optimize_parameters(self):
        fake_B = self.netG_A(self.real_A)
        fake_A = self.netG_B(self.real_B)
        for net in (self.netD_A, self.netD_B):
            net.requires_grad_(False)
        self.optimizer_G.zero_grad()
        loss_G = (
            self.gan_loss(self.netD_A(fake_B), True)
            + self.gan_loss(self.netD_B(fake_A), True)
            + 10.0 * self.criterionCycle(self.netG_B(fake_B), self.real_A)
            + 10.0 * self.criterionCycle(self.netG_A(fake_A), self.real_B)
        )
        loss_G.backward()
        self.optimizer_G.step()

        for net in (self.netD_A, self.netD_B):
            net.requires_grad_(True)
        self.optimizer_D.zero_grad()
        loss_D = 0.5 * (
            self.gan_loss(self.netD_A(self.real_B), True) + self.gan_loss(self.netD_A(fake_B.detach()), False)
            + self.gan_loss(self.netD_B(self.real_A), True) + self.gan_loss(self.netD_B(fake_A.detach()), False)
        )
        loss_D.backward()
        self.optimizer_D.step()
        return loss_G.item(), loss_D.item()
