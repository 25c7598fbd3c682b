from collections import OrderedDict

import torch
from torch import nn


class Generator(nn.Module):
    def __init__(self, c_dim=17, conv_dim=64):
        super().__init__()
        self.main = nn.Sequential(
            nn.Conv2d(3 + c_dim, conv_dim, 7, padding=3, bias=False),
            nn.InstanceNorm2d(conv_dim, affine=True),
            nn.ReLU(inplace=True),
            nn.Conv2d(conv_dim, conv_dim, 3, padding=1, bias=False),
            nn.InstanceNorm2d(conv_dim, affine=True),
            nn.ReLU(inplace=True),
        )
        self.img_reg = nn.Sequential(nn.Conv2d(conv_dim, 3, 7, padding=3), nn.Tanh())
        self.attention_reg = nn.Sequential(nn.Conv2d(conv_dim, 1, 7, padding=3), nn.Sigmoid())

    def forward(self, x, c):
        c = c.view(c.size(0), c.size(1), 1, 1).expand(-1, -1, x.size(2), x.size(3))
        features = self.main(torch.cat([x, c], dim=1))
        return self.img_reg(features), self.attention_reg(features)


class Discriminator(nn.Module):
    def __init__(self, c_dim=17, conv_dim=64, image_size=128):
        super().__init__()
        self.main = nn.Sequential(
            nn.Conv2d(3, conv_dim, 4, stride=2, padding=1), nn.LeakyReLU(0.01),
            nn.Conv2d(conv_dim, conv_dim * 2, 4, stride=2, padding=1), nn.LeakyReLU(0.01),
        )
        self.conv_prob = nn.Conv2d(conv_dim * 2, 1, 3, padding=1)
        self.conv_cond = nn.Conv2d(conv_dim * 2, c_dim, image_size // 4)

    def forward(self, x):
        h = self.main(x)
        return self.conv_prob(h).squeeze(), self.conv_cond(h).squeeze()


class GANimation:
    def __init__(self, opt):
        self._opt = opt
        self._device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        self._G = Generator(opt.cond_nc).to(self._device)
        self._D = Discriminator(opt.cond_nc, image_size=opt.image_size).to(self._device)
        self._optimizer_G = torch.optim.Adam(self._G.parameters(), lr=opt.lr_G, betas=(0.5, 0.999))
        self._optimizer_D = torch.optim.Adam(self._D.parameters(), lr=opt.lr_D, betas=(0.5, 0.999))
        self._criterion_cycle = nn.L1Loss()
        self._criterion_D_cond = nn.MSELoss()

    def set_input(self, real_img, real_cond, desired_cond):
        self._real_img = real_img.to(self._device)
        self._real_cond = real_cond.to(self._device)
        self._desired_cond = desired_cond.to(self._device)
        self._B = real_img.size(0)

    def optimize_parameters(self, train_generator=True):
        loss_D, fake_imgs_masked = self._forward_D()
        self._optimizer_D.zero_grad()
        loss_D.backward()
        self._optimizer_D.step()

        loss_D_gp = self._gradient_penalty_D(fake_imgs_masked)
        self._optimizer_D.zero_grad()
        loss_D_gp.backward()
        self._optimizer_D.step()

        if train_generator:
            loss_G = self._forward_G()
            self._optimizer_G.zero_grad()
            loss_G.backward()
            self._optimizer_G.step()

    def _fake(self, img, cond):
        color, mask = self._G(img, cond)
        return mask * img + (1 - mask) * color, mask

    def _forward_G(self):
        fake_imgs_masked, fake_mask = self._fake(self._real_img, self._desired_cond)
        d_fake_prob, d_fake_cond = self._D(fake_imgs_masked)
        self._loss_g_masked_fake = -torch.mean(d_fake_prob) * self._opt.lambda_D_prob
        self._loss_g_masked_cond = self._criterion_D_cond(d_fake_cond, self._desired_cond) / self._B * self._opt.lambda_D_cond
        rec_imgs, rec_mask = self._fake(fake_imgs_masked, self._real_cond)
        self._loss_g_cyc = self._criterion_cycle(rec_imgs, self._real_img) * self._opt.lambda_cyc
        self._loss_g_mask_1 = torch.mean(fake_mask) * self._opt.lambda_mask
        self._loss_g_mask_2 = torch.mean(rec_mask) * self._opt.lambda_mask
        return self._loss_g_masked_fake + self._loss_g_masked_cond + self._loss_g_cyc + self._loss_g_mask_1 + self._loss_g_mask_2

    def _forward_D(self):
        fake_imgs_masked, _ = self._fake(self._real_img, self._desired_cond)
        d_real_prob, d_real_cond = self._D(self._real_img)
        self._loss_d_real = -torch.mean(d_real_prob) * self._opt.lambda_D_prob
        self._loss_d_cond = self._criterion_D_cond(d_real_cond, self._real_cond) / self._B * self._opt.lambda_D_cond
        d_fake_prob, _ = self._D(fake_imgs_masked.detach())
        self._loss_d_fake = torch.mean(d_fake_prob) * self._opt.lambda_D_prob
        return self._loss_d_real + self._loss_d_cond + self._loss_d_fake, fake_imgs_masked

    def _gradient_penalty_D(self, fake_imgs_masked):
        alpha = torch.rand(self._B, 1, 1, 1, device=self._device)
        interpolated = (alpha * self._real_img + (1 - alpha) * fake_imgs_masked.detach()).requires_grad_(True)
        prob, _ = self._D(interpolated)
        grad = torch.autograd.grad(prob.sum(), interpolated, create_graph=True)[0]
        grad_l2norm = grad.view(grad.size(0), -1).norm(2, dim=1)
        self._loss_d_gp = torch.mean((grad_l2norm - 1) ** 2) * self._opt.lambda_D_gp
        return self._loss_d_gp

    def get_current_errors(self):
        loss_dict = OrderedDict([
            ("g_mskd_fake", self._loss_g_masked_fake.data[0]),  # expect: TCK115
            ("g_mskd_cond", self._loss_g_masked_cond.data[0]),  # expect: TCK115
            ("g_cyc", self._loss_g_cyc.data[0]),  # expect: TCK115
            ("g_m1", self._loss_g_mask_1.data[0]),  # expect: TCK115
            ("g_m2", self._loss_g_mask_2.data[0]),  # expect: TCK115
            ("d_real", self._loss_d_real.data[0]),  # expect: TCK115
            ("d_cond", self._loss_d_cond.data[0]),  # expect: TCK115
            ("d_fake", self._loss_d_fake.data[0]),  # expect: TCK115
            ("d_gp", self._loss_d_gp.data[0]),  # expect: TCK115
        ])
        return loss_dict
