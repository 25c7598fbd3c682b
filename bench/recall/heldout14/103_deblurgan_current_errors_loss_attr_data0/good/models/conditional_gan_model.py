from collections import OrderedDict

import torch
import torch.nn as nn

from .losses import ContentLoss, DiscLossLS


class ResnetGenerator(nn.Module):
    def __init__(self, channels=3, ngf=32, blocks=4):
        super().__init__()
        layers = [nn.Conv2d(channels, ngf, 7, padding=3), nn.InstanceNorm2d(ngf), nn.ReLU(True)]
        for _ in range(blocks):
            layers += [nn.Conv2d(ngf, ngf, 3, padding=1), nn.InstanceNorm2d(ngf), nn.ReLU(True)]
        layers += [nn.Conv2d(ngf, channels, 7, padding=3), nn.Tanh()]
        self.model = nn.Sequential(*layers)

    def forward(self, x):
        return torch.clamp(x + self.model(x), -1, 1)


class PatchDiscriminator(nn.Module):
    def __init__(self, channels=3, ndf=32):
        super().__init__()
        self.model = nn.Sequential(
            nn.Conv2d(channels, ndf, 4, 2, 1), nn.LeakyReLU(0.2, True),
            nn.Conv2d(ndf, ndf * 2, 4, 2, 1), nn.InstanceNorm2d(ndf * 2), nn.LeakyReLU(0.2, True),
            nn.Conv2d(ndf * 2, 1, 4, 1, 1),
        )

    def forward(self, x):
        return self.model(x)


class ConditionalGAN:
    def __init__(self, opt, device):
        self.opt = opt
        self.device = device
        self.netG = ResnetGenerator().to(device)
        self.netD = PatchDiscriminator().to(device)
        self.optimizer_G = torch.optim.Adam(self.netG.parameters(), lr=opt.lr, betas=(0.5, 0.999))
        self.optimizer_D = torch.optim.Adam(self.netD.parameters(), lr=opt.lr, betas=(0.5, 0.999))
        self.disc_loss = DiscLossLS()
        self.content_loss = ContentLoss()

    def set_input(self, batch):
        self.real_A = batch["A"].to(self.device)
        self.real_B = batch["B"].to(self.device)

    def forward(self):
        self.fake_B = self.netG(self.real_A)

    def backward_D(self):
        self.loss_D = self.disc_loss.get_loss(self.netD, self.real_A, self.fake_B, self.real_B)
        self.loss_D.backward()

    def backward_G(self):
        self.loss_G_GAN = self.disc_loss.get_g_loss(self.netD, self.real_A, self.fake_B)
        self.loss_G_Content = self.content_loss.get_loss(self.fake_B, self.real_B) * self.opt.lambda_A
        self.loss_G = self.loss_G_GAN + self.loss_G_Content
        self.loss_G.backward()

    def optimize_parameters(self):
        self.forward()
        self.optimizer_D.zero_grad()
        self.backward_D()
        self.optimizer_D.step()
        self.optimizer_G.zero_grad()
        self.backward_G()
        self.optimizer_G.step()

    def get_current_errors(self):
        return OrderedDict([
            ("G_GAN", self.loss_G_GAN.item()),
            ("G_L1", self.loss_G_Content.item()),
            ("D_real+fake", self.loss_D.item()),
        ])
