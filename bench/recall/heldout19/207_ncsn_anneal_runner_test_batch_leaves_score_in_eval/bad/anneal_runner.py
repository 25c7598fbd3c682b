import logging
import os

import numpy as np
import tensorboardX
import torch
import torch.nn as nn
import torchvision.transforms as transforms
from torch.utils.data import DataLoader
from torchvision.datasets import CIFAR10

from losses import anneal_dsm_score_estimation


class CondScoreNet(nn.Module):
    def __init__(self, channels=3, ngf=64, num_classes=10):
        super().__init__()
        self.embed = nn.Embedding(num_classes, ngf)
        self.conv_in = nn.Conv2d(channels, ngf, 3, padding=1)
        self.body = nn.Sequential(
            nn.BatchNorm2d(ngf), nn.ELU(), nn.Conv2d(ngf, ngf, 3, padding=1),
            nn.Dropout2d(0.1), nn.BatchNorm2d(ngf), nn.ELU(), nn.Conv2d(ngf, ngf, 3, padding=1),
        )
        self.conv_out = nn.Conv2d(ngf, channels, 3, padding=1)

    def forward(self, x, y):
        h = self.conv_in(2 * x - 1) + self.embed(y)[:, :, None, None]
        return self.conv_out(self.body(h))


class AnnealRunner:
    def __init__(self, args, config):
        self.args = args
        self.config = config

    def get_optimizer(self, parameters):
        return torch.optim.Adam(parameters, lr=self.config.optim.lr, betas=(0.9, 0.999))

    def train(self):
        cfg = self.config
        transform = transforms.Compose([transforms.Resize(cfg.data.image_size), transforms.ToTensor()])
        dataset = CIFAR10(os.path.join(self.args.run, "datasets", "cifar10"), train=True,
                          download=True, transform=transform)
        test_dataset = CIFAR10(os.path.join(self.args.run, "datasets", "cifar10_test"), train=False,
                               download=True, transform=transform)
        dataloader = DataLoader(dataset, batch_size=cfg.training.batch_size, shuffle=True, num_workers=4)
        test_loader = DataLoader(test_dataset, batch_size=cfg.training.batch_size, shuffle=True,
                                 num_workers=4, drop_last=True)
        test_iter = iter(test_loader)
        tb_logger = tensorboardX.SummaryWriter(log_dir=os.path.join(self.args.run, "tensorboard", self.args.doc))

        score = CondScoreNet(num_classes=cfg.model.num_classes).to(cfg.device)
        optimizer = self.get_optimizer(score.parameters())
        if self.args.resume_training:
            states = torch.load(os.path.join(self.args.log, "checkpoint.pth"), weights_only=True)
            score.load_state_dict(states[0])
            optimizer.load_state_dict(states[1])

        sigmas = torch.tensor(np.exp(np.linspace(np.log(cfg.model.sigma_begin), np.log(cfg.model.sigma_end),
                                                 cfg.model.num_classes))).float().to(cfg.device)
        step = 0
        score.train()
        for epoch in range(cfg.training.n_epochs):
            for i, (X, y) in enumerate(dataloader):
                step += 1
                X = X.to(cfg.device)
                X = X / 256.0 * 255.0 + torch.rand_like(X) / 256.0
                labels = torch.randint(0, len(sigmas), (X.shape[0],), device=X.device)
                loss = anneal_dsm_score_estimation(score, X, labels, sigmas, cfg.training.anneal_power)

                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
                tb_logger.add_scalar("loss", loss.item(), global_step=step)
                logging.info(f"step: {step}, loss: {loss.item()}")

                if step >= cfg.training.n_iters:
                    return 0

                if step % 100 == 0:
                    score.eval()  # expect: TCK106
                    try:
                        test_X, test_y = next(test_iter)
                    except StopIteration:
                        test_iter = iter(test_loader)
                        test_X, test_y = next(test_iter)
                    test_X = test_X.to(cfg.device)
                    test_X = test_X / 256.0 * 255.0 + torch.rand_like(test_X) / 256.0
                    test_labels = torch.randint(0, len(sigmas), (test_X.shape[0],), device=test_X.device)
                    with torch.no_grad():
                        test_dsm_loss = anneal_dsm_score_estimation(score, test_X, test_labels, sigmas,
                                                                    cfg.training.anneal_power)
                    tb_logger.add_scalar("test_dsm_loss", test_dsm_loss.item(), global_step=step)

                if step % cfg.training.snapshot_freq == 0:
                    states = [score.state_dict(), optimizer.state_dict()]
                    torch.save(states, os.path.join(self.args.log, f"checkpoint_{step}.pth"))
                    torch.save(states, os.path.join(self.args.log, "checkpoint.pth"))
