import math

import numpy as np
import torch
import torch.nn as nn
from sklearn.datasets import load_digits
from torch.utils.data import DataLoader, Dataset

LOG_2PI = math.log(2.0 * math.pi)


class Digits(Dataset):
    """scikit-learn 8x8 digits, scaled to [-1, 1]."""

    def __init__(self, mode="train"):
        data = load_digits().data.astype(np.float32)
        split = {"train": slice(0, 1000), "val": slice(1000, 1350), "test": slice(1350, None)}[mode]
        self.data = 2.0 * (data[split] / 17.0) - 1.0

    def __len__(self):
        return len(self.data)

    def __getitem__(self, idx):
        return self.data[idx]


def log_normal_diag(x, mu, log_var):
    return -0.5 * LOG_2PI - 0.5 * log_var - 0.5 * torch.exp(-log_var) * (x - mu) ** 2.0


def log_standard_normal(x):
    return -0.5 * LOG_2PI - 0.5 * x ** 2.0


class DDGM(nn.Module):
    def __init__(self, p_dnns, decoder_net, beta, T, D):
        super(DDGM, self).__init__()
        self.p_dnns = p_dnns  # expect: TCK601
        self.decoder_net = decoder_net
        self.D = D
        self.T = T
        self.beta = torch.tensor(beta)

    @staticmethod
    def reparameterization(mu, log_var):
        return mu + torch.exp(0.5 * log_var) * torch.randn_like(mu)

    def diffuse(self, x):
        return torch.sqrt(1.0 - self.beta) * x + torch.sqrt(self.beta) * torch.randn_like(x)

    def forward(self, x, reduction="avg"):
        zs = [self.diffuse(x)]
        for _ in range(1, self.T):
            zs.append(self.diffuse(zs[-1]))

        mus, log_vars = [], []
        for i in range(len(self.p_dnns) - 1, -1, -1):
            mu_i, log_var_i = torch.chunk(self.p_dnns[i](zs[i + 1]), 2, dim=1)
            mus.append(mu_i)
            log_vars.append(log_var_i)

        mu_x = self.decoder_net(zs[0])
        re = log_standard_normal(x - mu_x).sum(-1)
        kl = (log_normal_diag(zs[-1], torch.sqrt(1.0 - self.beta) * zs[-1], torch.log(self.beta))
              - log_standard_normal(zs[-1])).sum(-1)
        for i in range(len(mus)):
            kl = kl + (log_normal_diag(zs[i], torch.sqrt(1.0 - self.beta) * zs[i], torch.log(self.beta))
                       - log_normal_diag(zs[i], mus[i], log_vars[i])).sum(-1)
        elbo = re - kl
        return -elbo.sum() if reduction == "sum" else -elbo.mean()

    @torch.no_grad()
    def sample(self, batch_size=64):
        z = torch.randn(batch_size, self.D)
        for i in range(len(self.p_dnns) - 1, -1, -1):
            mu_i, log_var_i = torch.chunk(self.p_dnns[i](z), 2, dim=1)
            z = self.reparameterization(torch.tanh(mu_i), log_var_i)
        return self.decoder_net(z)


def evaluation(loader, model):
    model.eval()
    total, n = 0.0, 0
    with torch.no_grad():
        for batch in loader:
            total += model(batch, reduction="sum").item()
            n += batch.shape[0]
    return total / n


def training(name, max_patience, num_epochs, model, optimizer, training_loader, val_loader):
    best_nll, patience, nll_val = float("inf"), 0, []
    for e in range(num_epochs):
        model.train()
        for batch in training_loader:
            loss = model(batch)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        loss_val = evaluation(val_loader, model)
        nll_val.append(loss_val)
        print(f"Epoch: {e}, val nll={loss_val}")
        if loss_val < best_nll:
            torch.save(model.state_dict(), name + ".pt")
            best_nll, patience = loss_val, 0
        else:
            patience += 1
            if patience > max_patience:
                break
    return np.asarray(nll_val)


if __name__ == "__main__":
    D, M, T, beta = 64, 256, 5, 0.9
    training_loader = DataLoader(Digits("train"), batch_size=64, shuffle=True)
    val_loader = DataLoader(Digits("val"), batch_size=64)

    p_dnns = [nn.Sequential(nn.Linear(D, M), nn.LeakyReLU(),
                            nn.Linear(M, M), nn.LeakyReLU(),
                            nn.Linear(M, M), nn.LeakyReLU(),
                            nn.Linear(M, 2 * D)) for _ in range(T - 1)]
    decoder_net = nn.Sequential(nn.Linear(D, M * 2), nn.LeakyReLU(),
                                nn.Linear(M * 2, M * 2), nn.LeakyReLU(),
                                nn.Linear(M * 2, D), nn.Tanh())
    model = DDGM(p_dnns, decoder_net, beta=beta, T=T, D=D)
    optimizer = torch.optim.Adamax([p for p in model.parameters() if p.requires_grad], lr=1e-3)
    training("ddgm", max_patience=50, num_epochs=1000, model=model, optimizer=optimizer,
             training_loader=training_loader, val_loader=val_loader)
