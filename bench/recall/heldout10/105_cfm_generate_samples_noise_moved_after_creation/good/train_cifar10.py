import copy
import os

import torch
from torch import nn
from torch.utils.data import DataLoader
from torchvision import datasets, transforms

from utils_cifar import device, ema, generate_samples, infiniteloop


class VelocityNet(nn.Module):
    def __init__(self, ch=64):
        super().__init__()
        self.net = nn.Sequential(
            nn.Conv2d(4, ch, 3, padding=1), nn.SiLU(),
            nn.Conv2d(ch, ch, 3, padding=1), nn.SiLU(),
            nn.Conv2d(ch, 3, 3, padding=1),
        )

    def forward(self, t, x, *args, **kwargs):
        if t.dim() == 0:
            t = t.expand(x.size(0))
        t_map = t.view(-1, 1, 1, 1).expand(-1, 1, *x.shape[2:])
        return self.net(torch.cat([x, t_map], dim=1))


def train(total_steps=20001, save_step=5000, savedir="./results/"):
    os.makedirs(savedir, exist_ok=True)
    dataset = datasets.CIFAR10(
        "./data", train=True, download=True,
        transform=transforms.Compose([transforms.RandomHorizontalFlip(), transforms.ToTensor(),
                                      transforms.Normalize((0.5, 0.5, 0.5), (0.5, 0.5, 0.5))]),
    )
    datalooper = infiniteloop(DataLoader(dataset, batch_size=128, shuffle=True, num_workers=4, drop_last=True))

    net_model = VelocityNet().to(device)
    ema_model = copy.deepcopy(net_model)
    optim = torch.optim.Adam(net_model.parameters(), lr=2e-4)

    for step in range(total_steps):
        optim.zero_grad()
        x1 = next(datalooper).to(device)
        x0 = torch.randn_like(x1)
        t = torch.rand(x1.size(0), device=device)
        xt = t.view(-1, 1, 1, 1) * x1 + (1 - t.view(-1, 1, 1, 1)) * x0
        ut = x1 - x0
        vt = net_model(t, xt)
        loss = torch.mean((vt - ut) ** 2)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(net_model.parameters(), 1.0)
        optim.step()
        ema(net_model, ema_model, 0.9999)

        if save_step > 0 and step % save_step == 0:
            generate_samples(net_model, savedir, step, net_="normal")
            generate_samples(ema_model, savedir, step, net_="ema")


if __name__ == "__main__":
    train()
