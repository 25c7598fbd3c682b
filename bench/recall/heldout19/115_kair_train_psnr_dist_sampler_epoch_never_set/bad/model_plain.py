from collections import OrderedDict

import torch
import torch.nn as nn
from torch.optim import Adam, lr_scheduler


class MSRResNet(nn.Module):
    def __init__(self, nc=64, nb=8, upscale=4):
        super().__init__()
        self.head = nn.Conv2d(3, nc, 3, padding=1)
        self.body = nn.Sequential(*[nn.Sequential(nn.Conv2d(nc, nc, 3, padding=1), nn.ReLU(inplace=True)) for _ in range(nb)])
        self.up = nn.Sequential(nn.Conv2d(nc, 3 * upscale ** 2, 3, padding=1), nn.PixelShuffle(upscale))

    def forward(self, x):
        return self.up(self.body(self.head(x)))


class ModelPlain:
    """Train with pixel loss only (PSNR-oriented)."""

    def __init__(self, opt):
        self.opt = opt
        self.device = torch.device("cuda" if opt["gpu_ids"] else "cpu")
        self.netG = MSRResNet().to(self.device)
        if opt["dist"]:
            self.netG = nn.parallel.DistributedDataParallel(self.netG, device_ids=[torch.cuda.current_device()])

    def init_train(self):
        self.netG.train()
        self.G_lossfn = nn.L1Loss().to(self.device)
        self.G_optimizer = Adam(self.netG.parameters(), lr=self.opt["train"]["G_optimizer_lr"])
        self.schedulers = [lr_scheduler.MultiStepLR(self.G_optimizer, self.opt["train"]["G_scheduler_milestones"], 0.5)]
        self.log_dict = OrderedDict()

    def update_learning_rate(self, n):
        for scheduler in self.schedulers:
            scheduler.step(n)

    def feed_data(self, data):
        self.L = data["L"].to(self.device)
        self.H = data["H"].to(self.device)

    def optimize_parameters(self, current_step):
        self.G_optimizer.zero_grad()
        self.E = self.netG(self.L)
        G_loss = self.G_lossfn(self.E, self.H)
        G_loss.backward()
        self.G_optimizer.step()
        self.log_dict["G_loss"] = G_loss.item()

    def current_log(self):
        return self.log_dict

    def save(self, iter_label):
        net = self.netG.module if isinstance(self.netG, nn.parallel.DistributedDataParallel) else self.netG
        torch.save(net.state_dict(), "{}_G.pth".format(iter_label))
