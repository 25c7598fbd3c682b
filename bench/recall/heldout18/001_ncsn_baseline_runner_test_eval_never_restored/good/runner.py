import logging
import os

import torch
import torch.optim as optim
import torchvision.transforms as transforms
from torch.utils.data import DataLoader
from torch.utils.tensorboard import SummaryWriter
from torchvision.datasets import MNIST

from losses import dsm_score_estimation
from models import RefineNetDilated


class BaselineRunner:
    def __init__(self, run_dir, n_epochs=100, n_iters=200001, batch_size=128, lr=1e-3, snapshot_freq=5000):
        self.run_dir = run_dir
        self.n_epochs = n_epochs
        self.n_iters = n_iters
        self.batch_size = batch_size
        self.lr = lr
        self.snapshot_freq = snapshot_freq
        self.device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

    def train(self):
        tf = transforms.ToTensor()
        dataset = MNIST(os.path.join(self.run_dir, "mnist"), train=True, download=True, transform=tf)
        test_dataset = MNIST(os.path.join(self.run_dir, "mnist_test"), train=False, download=True, transform=tf)
        dataloader = DataLoader(dataset, batch_size=self.batch_size, shuffle=True, num_workers=4)
        test_loader = DataLoader(test_dataset, batch_size=self.batch_size, shuffle=True, drop_last=True)
        test_iter = iter(test_loader)
        tb_logger = SummaryWriter(os.path.join(self.run_dir, "tensorboard"))

        score = RefineNetDilated().to(self.device)
        optimizer = optim.Adam(score.parameters(), lr=self.lr)

        step = 0
        for epoch in range(self.n_epochs):
            for i, (X, y) in enumerate(dataloader):
                step += 1
                score.train()
                X = X.to(self.device)
                X = X / 256.0 * 255.0 + torch.rand_like(X) / 256.0

                loss = dsm_score_estimation(score, X, sigma=0.01)

                optimizer.zero_grad()
                loss.backward()
                optimizer.step()

                tb_logger.add_scalar("loss", loss.item(), global_step=step)
                logging.info("step: %d, loss: %.4f", step, loss.item())

                if step >= self.n_iters:
                    return 0

                if step % 100 == 0:
                    score.eval()
                    try:
                        test_X, _ = next(test_iter)
                    except StopIteration:
                        test_iter = iter(test_loader)
                        test_X, _ = next(test_iter)
                    test_X = test_X.to(self.device)
                    test_X = test_X / 256.0 * 255.0 + torch.rand_like(test_X) / 256.0

                    with torch.no_grad():
                        test_dsm_loss = dsm_score_estimation(score, test_X, sigma=0.01)
                    tb_logger.add_scalar("test_dsm_loss", test_dsm_loss.item(), global_step=step)

                if step % self.snapshot_freq == 0:
                    states = [score.state_dict(), optimizer.state_dict()]
                    torch.save(states, os.path.join(self.run_dir, "checkpoint_{}.pth".format(step)))


if __name__ == "__main__":
    BaselineRunner("run").train()
