import torch
from torch import nn
from torch.optim import lr_scheduler

from base_model import BaseModel


class SRResNet(nn.Module):
    def __init__(self, nf=64, nb=8, scale=4):
        super().__init__()
        self.conv_first = nn.Conv2d(3, nf, 3, 1, 1)
        self.body = nn.Sequential(*[nn.Sequential(nn.Conv2d(nf, nf, 3, 1, 1), nn.ReLU(inplace=True)) for _ in range(nb)])
        self.upsample = nn.Sequential(nn.Conv2d(nf, 3 * scale * scale, 3, 1, 1), nn.PixelShuffle(scale))

    def forward(self, x):
        fea = self.conv_first(x)
        return self.upsample(fea + self.body(fea))


class SRModel(BaseModel):
    def __init__(self, opt):
        super().__init__(opt)
        train_opt = opt["train"]
        self.netG = SRResNet().to(self.device)
        self.cri_pix = nn.L1Loss().to(self.device)
        self.optimizer_G = torch.optim.Adam(self.netG.parameters(), lr=train_opt["lr_G"], betas=(0.9, 0.99))
        self.optimizers.append(self.optimizer_G)
        for optimizer in self.optimizers:
            self.schedulers.append(
                lr_scheduler.MultiStepLR(optimizer, train_opt["lr_steps"], gamma=train_opt["lr_gamma"])
            )
        self.log_dict = {}

    def feed_data(self, data):
        self.var_L = data["LQ"].to(self.device)
        self.real_H = data["GT"].to(self.device)

    def optimize_parameters(self, step):
        self.netG.train()
        self.optimizer_G.zero_grad()
        self.fake_H = self.netG(self.var_L)
        l_pix = self.cri_pix(self.fake_H, self.real_H)
        l_pix.backward()
        self.optimizer_G.step()
        self.log_dict["l_pix"] = l_pix.item()

    def save(self, iter_label):
        self.save_network(self.netG, "G", iter_label)
