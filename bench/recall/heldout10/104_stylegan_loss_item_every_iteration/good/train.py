import argparse

import torch
import torch.nn.functional as F
from torch import optim
from torch.autograd import grad
from torch.utils.data import DataLoader, TensorDataset
from tqdm import tqdm

from networks import Discriminator, Generator


def requires_grad(model, flag=True):
    for p in model.parameters():
        p.requires_grad = flag


def sample_data(loader):
    while True:
        for (batch,) in loader:
            yield batch


def train(args, loader, generator, discriminator, g_optimizer, d_optimizer, device):
    data = sample_data(loader)
    disc_loss_val = gen_loss_val = grad_loss_val = 0.0
    pbar = tqdm(range(args.iters))
    for i in pbar:
        discriminator.zero_grad()
        requires_grad(generator, False)
        requires_grad(discriminator, True)

        real_image = next(data).to(device)
        b_size = real_image.size(0)

        if args.loss == "wgan-gp":
            real_predict = discriminator(real_image).mean()
            (-real_predict).backward()
        else:
            real_image.requires_grad = True
            real_scores = discriminator(real_image)
            real_predict = F.softplus(-real_scores).mean()
            real_predict.backward(retain_graph=True)
            grad_real = grad(outputs=real_scores.sum(), inputs=real_image, create_graph=True)[0]
            grad_penalty = 5 * grad_real.flatten(1).norm(2, dim=1).pow(2).mean()
            grad_penalty.backward()
            if i % 10 == 0:
                grad_loss_val = grad_penalty.item()

        z = torch.randn(b_size, args.code_size, device=device)
        fake_image = generator(z)
        fake_predict = discriminator(fake_image)

        if args.loss == "wgan-gp":
            fake_predict = fake_predict.mean()
            fake_predict.backward()
            eps = torch.rand(b_size, 1, 1, 1, device=device)
            x_hat = (eps * real_image + (1 - eps) * fake_image.detach()).requires_grad_(True)
            hat_predict = discriminator(x_hat)
            grad_x_hat = grad(outputs=hat_predict.sum(), inputs=x_hat, create_graph=True)[0]
            grad_penalty = 10 * ((grad_x_hat.flatten(1).norm(2, dim=1) - 1) ** 2).mean()
            grad_penalty.backward()
            if i % 10 == 0:
                grad_loss_val = grad_penalty.item()
            if i % 10 == 0:
                disc_loss_val = (real_predict - fake_predict).item()
        else:
            fake_predict = F.softplus(fake_predict).mean()
            fake_predict.backward()
            if i % 10 == 0:
                disc_loss_val = (real_predict + fake_predict).item()

        d_optimizer.step()

        if (i + 1) % args.n_critic == 0:
            generator.zero_grad()
            requires_grad(generator, True)
            requires_grad(discriminator, False)
            predict = discriminator(generator(torch.randn(b_size, args.code_size, device=device)))
            if args.loss == "wgan-gp":
                loss = -predict.mean()
            else:
                loss = F.softplus(-predict).mean()
            if i % 10 == 0:
                gen_loss_val = loss.item()
            loss.backward()
            g_optimizer.step()

        pbar.set_description(f"G: {gen_loss_val:.3f}; D: {disc_loss_val:.3f}; Grad: {grad_loss_val:.3f}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--loss", default="wgan-gp", choices=["wgan-gp", "r1"])
    parser.add_argument("--iters", type=int, default=1000)
    parser.add_argument("--n_critic", type=int, default=1)
    parser.add_argument("--code_size", type=int, default=128)
    args = parser.parse_args()

    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    generator = Generator(args.code_size).to(device)
    discriminator = Discriminator().to(device)
    g_optimizer = optim.Adam(generator.parameters(), lr=1e-3, betas=(0.0, 0.99))
    d_optimizer = optim.Adam(discriminator.parameters(), lr=1e-3, betas=(0.0, 0.99))
    loader = DataLoader(TensorDataset(torch.rand(1024, 3, 32, 32) * 2 - 1), batch_size=32, shuffle=True, drop_last=True)
    train(args, loader, generator, discriminator, g_optimizer, d_optimizer, device)
