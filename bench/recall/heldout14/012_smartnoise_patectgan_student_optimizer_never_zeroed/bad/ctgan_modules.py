import torch
import torch.nn as nn


class Generator(nn.Module):
    def __init__(self, embedding_dim, gen_dims, data_dim):
        super().__init__()
        layers, dim = [], embedding_dim
        for item in gen_dims:
            layers += [nn.Linear(dim, item), nn.BatchNorm1d(item), nn.ReLU()]
            dim = item
        layers.append(nn.Linear(dim, data_dim))
        self.seq = nn.Sequential(*layers)

    def forward(self, noise):
        return self.seq(noise)


class Discriminator(nn.Module):
    def __init__(self, input_dim, dis_dims):
        super().__init__()
        layers, dim = [], input_dim
        for item in dis_dims:
            layers += [nn.Linear(dim, item), nn.LeakyReLU(0.2), nn.Dropout(0.5)]
            dim = item
        layers.append(nn.Linear(dim, 1))
        self.seq = nn.Sequential(*layers)

    def forward(self, x):
        return self.seq(x)


def weights_init(m):
    if isinstance(m, nn.Linear):
        nn.init.normal_(m.weight, 0.0, 0.02)
        nn.init.zeros_(m.bias)


def pate_votes(fake_data, teachers, noise_multiplier):
    """Noisy majority vote of the teacher discriminators on the generated samples."""
    with torch.no_grad():
        votes = torch.stack([(t(fake_data) > 0).float().squeeze(1) for t in teachers], dim=1).sum(dim=1)
        noisy = votes + noise_multiplier * torch.randn_like(votes)
        return (noisy > len(teachers) / 2).float().unsqueeze(1)
