import torch
import torch.nn as nn


class ContentLoss:
    def __init__(self):
        self.criterion = nn.L1Loss()

    def get_loss(self, fake, real):
        return self.criterion(fake, real)


class DiscLossLS:
    def __init__(self):
        self.criterion = nn.MSELoss()

    def get_g_loss(self, net_d, real_a, fake_b):
        pred_fake = net_d(fake_b)
        return self.criterion(pred_fake, torch.ones_like(pred_fake))

    def get_loss(self, net_d, real_a, fake_b, real_b):
        pred_fake = net_d(fake_b.detach())
        pred_real = net_d(real_b)
        loss_fake = self.criterion(pred_fake, torch.zeros_like(pred_fake))
        loss_real = self.criterion(pred_real, torch.ones_like(pred_real))
        return (loss_fake + loss_real) * 0.5
