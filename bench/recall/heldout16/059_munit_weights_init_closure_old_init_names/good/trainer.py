import torch
import torch.nn.functional as F
from torch import nn

from networks import Discriminator, Generator
from utils import get_scheduler, weights_init


class UNIT_Trainer(nn.Module):
    def __init__(self, hyperparameters):
        super().__init__()
        lr = hyperparameters["lr"]
        self.gen_a, self.gen_b = Generator(), Generator()
        self.dis_a, self.dis_b = Discriminator(), Discriminator()
        betas = (hyperparameters["beta1"], hyperparameters["beta2"])
        gen_params = list(self.gen_a.parameters()) + list(self.gen_b.parameters())
        dis_params = list(self.dis_a.parameters()) + list(self.dis_b.parameters())
        self.gen_opt = torch.optim.Adam(gen_params, lr=lr, betas=betas)
        self.dis_opt = torch.optim.Adam(dis_params, lr=lr, betas=betas)
        self.gen_scheduler = get_scheduler(self.gen_opt, hyperparameters)
        self.dis_scheduler = get_scheduler(self.dis_opt, hyperparameters)
        self.apply(weights_init(hyperparameters["init"]))
        self.dis_a.apply(weights_init("gaussian"))
        self.dis_b.apply(weights_init("gaussian"))

    def gen_update(self, x_a, x_b):
        self.gen_opt.zero_grad()
        x_ab, x_ba = self.gen_b(x_a), self.gen_a(x_b)
        adv = ((self.dis_b(x_ab) - 1) ** 2).mean() + ((self.dis_a(x_ba) - 1) ** 2).mean()
        recon = F.l1_loss(self.gen_a(x_ab), x_a) + F.l1_loss(self.gen_b(x_ba), x_b)
        loss = adv + 10.0 * recon
        loss.backward()
        self.gen_opt.step()
        return loss.item()

    def dis_update(self, x_a, x_b):
        self.dis_opt.zero_grad()
        with torch.no_grad():
            x_ab, x_ba = self.gen_b(x_a), self.gen_a(x_b)
        loss = ((self.dis_a(x_ba)) ** 2).mean() + ((self.dis_a(x_a) - 1) ** 2).mean()
        loss = loss + ((self.dis_b(x_ab)) ** 2).mean() + ((self.dis_b(x_b) - 1) ** 2).mean()
        loss.backward()
        self.dis_opt.step()
        return loss.item()


if __name__ == "__main__":
    hp = {"lr": 1e-4, "beta1": 0.5, "beta2": 0.999, "init": "kaiming"}
    trainer = UNIT_Trainer(hp).cuda()
    for it in range(1000):
        a = torch.randn(1, 3, 128, 128, device="cuda")
        b = torch.randn(1, 3, 128, 128, device="cuda")
        trainer.dis_update(a, b)
        trainer.gen_update(a, b)
