import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim

from loss import discriminator


class Adversarial(nn.Module):
    """GAN loss for the SR generator; trains its own discriminator on every call."""

    def __init__(self, args, gan_type):
        super().__init__()
        self.gan_type = gan_type
        self.gan_k = args.gan_k
        self.discriminator = discriminator.Discriminator(args, gan_type)
        if gan_type == "WGAN_GP":
            self.optimizer = optim.Adam(self.discriminator.parameters(), betas=(0, 0.9), eps=1e-8, lr=1e-5)
        else:
            self.optimizer = optim.Adam(self.discriminator.parameters(), betas=(0.9, 0.999), lr=args.lr)
        self.scheduler = optim.lr_scheduler.StepLR(self.optimizer, step_size=args.lr_decay, gamma=0.5)
        self.loss = 0

    def forward(self, fake, real):
        fake_detach = fake.detach()

        self.loss = 0
        for _ in range(self.gan_k):
            self.optimizer.zero_grad()
            d_fake = self.discriminator(fake_detach)
            d_real = self.discriminator(real)
            if self.gan_type == "GAN":
                loss_d = F.binary_cross_entropy_with_logits(d_fake, torch.zeros_like(d_fake)) \
                    + F.binary_cross_entropy_with_logits(d_real, torch.ones_like(d_real))
            else:
                loss_d = (d_fake - d_real).mean()
                if self.gan_type.find("GP") >= 0:
                    epsilon = torch.rand(fake.size(0), 1, 1, 1, device=fake.device)
                    hat = fake_detach.mul(1 - epsilon) + real.mul(epsilon)
                    hat.requires_grad = True
                    d_hat = self.discriminator(hat)
                    gradients = torch.autograd.grad(outputs=d_hat.sum(), inputs=hat,
                                                    retain_graph=True, create_graph=True)[0]
                    gradient_norm = gradients.view(gradients.size(0), -1).norm(2, dim=1)
                    loss_d += 10 * gradient_norm.sub(1).pow(2).mean()

            # Discriminator update
            self.loss += loss_d.item()
            loss_d.backward()
            self.optimizer.step()

            if self.gan_type == "WGAN":
                with torch.no_grad():
                    for p in self.discriminator.parameters():
                        p.clamp_(-1, 1)

        self.loss /= self.gan_k

        d_fake_for_g = self.discriminator(fake)
        if self.gan_type == "GAN":
            return F.binary_cross_entropy_with_logits(d_fake_for_g, torch.ones_like(d_fake_for_g))
        return -d_fake_for_g.mean()
