import torch
import torch.nn.functional as F
from torch import autograd


def toggle_grad(model, requires_grad):
    for p in model.parameters():
        p.requires_grad_(requires_grad)


class Trainer:
    def __init__(self, generator, discriminator, g_optimizer, d_optimizer, reg_param=10.0):
        self.generator = generator
        self.discriminator = discriminator
        self.g_optimizer = g_optimizer
        self.d_optimizer = d_optimizer
        self.reg_param = reg_param

    def generator_trainstep(self, y, z):
        toggle_grad(self.generator, True)
        toggle_grad(self.discriminator, False)
        self.generator.train()
        self.discriminator.train()
        self.g_optimizer.zero_grad()
        x_fake = self.generator(z, y)
        d_fake = self.discriminator(x_fake, y)
        gloss = F.binary_cross_entropy_with_logits(d_fake, torch.ones_like(d_fake))
        gloss.backward()
        self.g_optimizer.step()
        return gloss.item(), x_fake.detach()

    def discriminator_trainstep(self, x_real, y, x_fake):
        toggle_grad(self.generator, False)
        toggle_grad(self.discriminator, True)
        self.d_optimizer.zero_grad()
        x_real.requires_grad_()
        d_real = self.discriminator(x_real, y)
        dloss_real = F.binary_cross_entropy_with_logits(d_real, torch.ones_like(d_real))
        grad = autograd.grad(d_real.sum(), x_real, create_graph=True)[0]
        reg = self.reg_param * grad.pow(2).reshape(grad.size(0), -1).sum(1).mean()
        d_fake = self.discriminator(x_fake, y)
        dloss_fake = F.binary_cross_entropy_with_logits(d_fake, torch.zeros_like(d_fake))
        (dloss_real + dloss_fake + reg).backward()
        self.d_optimizer.step()
        return (dloss_real + dloss_fake).item(), reg.item()
