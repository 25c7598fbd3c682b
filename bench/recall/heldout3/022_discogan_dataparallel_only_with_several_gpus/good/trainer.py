import torch
import torch.nn as nn

from models import GeneratorCNN, DiscriminatorCNN


class Trainer:
    def __init__(self, config, a_loader, b_loader):
        self.num_gpu = config.num_gpu
        self.a_loader, self.b_loader = a_loader, b_loader
        self.G_AB = GeneratorCNN(3, 3, config.conv_dims, config.deconv_dims)
        self.D_B = DiscriminatorCNN(3, 1, config.conv_dims)
        self.G_AB.cuda()
        self.D_B.cuda()
        self.optimizer_g = torch.optim.Adam(self.G_AB.parameters(), lr=2e-4, betas=(0.5, 0.999))
        self.optimizer_d = torch.optim.Adam(self.D_B.parameters(), lr=2e-4, betas=(0.5, 0.999))
        self.bce = nn.BCELoss()

    def train(self, max_step):
        for step, (x_A, x_B) in zip(range(max_step), zip(self.a_loader, self.b_loader)):
            x_A, x_B = x_A.cuda(), x_B.cuda()
            x_AB = self.G_AB(x_A)
            pred_real, pred_fake = self.D_B(x_B), self.D_B(x_AB.detach())
            l_d = self.bce(pred_real, torch.ones_like(pred_real)) + self.bce(pred_fake, torch.zeros_like(pred_fake))
            self.optimizer_d.zero_grad()
            l_d.backward()
            self.optimizer_d.step()
            pred = self.D_B(x_AB)
            l_g = self.bce(pred, torch.ones_like(pred))
            self.optimizer_g.zero_grad()
            l_g.backward()
            self.optimizer_g.step()
        torch.save(self.G_AB.state_dict(), "G_AB.pth")
