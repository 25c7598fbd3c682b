from itertools import repeat
from urllib import request

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.sampler import SubsetRandomSampler

torch.manual_seed(1337)
np.random.seed(1337)

cuda = torch.cuda.is_available()


def binary_cross_entropy(r, x):
    return -torch.sum(x * torch.log(r + 1e-8) + (1 - x) * torch.log(1 - r + 1e-8), dim=-1)


class SpriteDataset(Dataset):
    def __init__(self, transform=None, download=False):
        self.transform = transform
        url = "https://github.com/deepmind/dsprites-dataset/raw/master/dsprites_ndarray_co1sh3sc6or40x32y32_64x64.npz"
        if download:
            request.urlretrieve(url, "./dsprites.npz")
        self.dset = np.load("./dsprites.npz", encoding="bytes")["imgs"]

    def __len__(self):
        return len(self.dset)

    def __getitem__(self, idx):
        sample = self.dset[idx]
        if self.transform:
            sample = self.transform(sample)
        return sample


class VariationalAutoencoder(nn.Module):
    def __init__(self, x_dim, z_dim, h_dim):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(x_dim, h_dim), nn.ReLU(), nn.Linear(h_dim, 2 * z_dim))
        self.decoder = nn.Sequential(nn.Linear(z_dim, h_dim), nn.Tanh(), nn.Linear(h_dim, x_dim), nn.Sigmoid())
        self.kl_divergence = 0

    def forward(self, x):
        mu, log_var = self.encoder(x).chunk(2, dim=-1)
        z = mu + torch.randn_like(mu) * torch.exp(0.5 * log_var)
        self.kl_divergence = -0.5 * torch.sum(1 + log_var - mu.pow(2) - log_var.exp(), dim=-1)
        return self.decoder(z)


if __name__ == "__main__":
    dset = SpriteDataset(transform=lambda x: x.reshape(-1).astype(np.float32), download=True)
    unlabelled = DataLoader(dset, batch_size=16, shuffle=True, sampler=SubsetRandomSampler(np.arange(len(dset) // 3)))  # expect: TCK801

    model = VariationalAutoencoder(64 ** 2, 10, 1200)
    if cuda:
        model = model.cuda()

    beta = repeat(4.0)
    optimizer = torch.optim.Adagrad(model.parameters(), lr=1e-2)

    for epoch in range(251):
        model.train()
        total_loss = 0
        for u in unlabelled:
            u = u.cuda() if cuda else u
            reconstruction = model(u)
            likelihood = -binary_cross_entropy(reconstruction, u)
            elbo = likelihood - next(beta) * model.kl_divergence
            L = -torch.mean(elbo)
            L.backward()
            optimizer.step()
            optimizer.zero_grad()
            total_loss += L.item()
        print("Epoch: {}\tL: {:.2f}".format(epoch, total_loss / len(unlabelled)))
