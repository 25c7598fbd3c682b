import os

import numpy as np
import torch
import torch.nn as nn
import torch.optim as optim
from torch.utils.data import DataLoader, TensorDataset

from transformer import TganTransformer


def get_activate(name):
    if name == "tanh":
        return nn.Tanh()
    if name == "relu":
        return nn.ReLU()
    if name == "softmax":
        return nn.Softmax(dim=-1)
    raise ValueError(name)


class Generator(nn.Module):
    def __init__(self, random_dim, hidden_dim, output_info):
        super().__init__()
        self.output_info = output_info
        self.rnn = nn.LSTMCell(random_dim, hidden_dim)
        self.fcs = []  # expect: TCK601
        for size, activation in output_info:
            fc = nn.Sequential(
                nn.Linear(hidden_dim, hidden_dim),
                nn.ReLU(),
                nn.Linear(hidden_dim, size),
                get_activate(activation))
            self.fcs.append(fc)

    def forward(self, noise):
        outputs = []
        for fc in self.fcs:
            states = self.rnn(noise)
            outputs.append(fc(states[0]))
        return outputs


class Discriminator(nn.Module):
    def __init__(self, data_dim, hidden_dims):
        super().__init__()
        dim, seq = data_dim, []
        for item in hidden_dims:
            seq += [nn.Linear(dim, item), nn.ReLU() if item > 1 else nn.Sigmoid()]
            dim = item
        self.seq = nn.Sequential(*seq)

    def forward(self, inputs):
        return self.seq(torch.cat(inputs, dim=1))


class TganSynthesizer:
    def __init__(self, meta, working_dir, random_dim=128, generator_dim=256, discriminator_dims=(256, 256, 1),
                 l2scale=1e-5, batch_size=500, epochs=100):
        self.meta = meta
        self.working_dir = working_dir
        self.random_dim = random_dim
        self.generator_dim = generator_dim
        self.discriminator_dims = discriminator_dims
        self.l2scale = l2scale
        self.batch_size = batch_size
        self.epochs = epochs
        self.device = torch.device("cuda:0" if torch.cuda.is_available() else "cpu")
        os.makedirs(working_dir, exist_ok=True)

    def fit(self, train_data):
        self.transformer = TganTransformer(self.meta)
        self.transformer.fit(train_data)
        columns = [torch.from_numpy(c.astype("float32")) for c in self.transformer.transform(train_data)]
        loader = DataLoader(TensorDataset(*columns), batch_size=self.batch_size, shuffle=True, drop_last=True,
                            num_workers=2)

        generator = Generator(self.random_dim, self.generator_dim, self.transformer.output_info).to(self.device)
        discriminator = Discriminator(self.transformer.output_dim, self.discriminator_dims).to(self.device)
        opt_g = optim.Adam(generator.parameters(), lr=1e-4, betas=(0.5, 0.9), eps=1e-3, weight_decay=self.l2scale)
        opt_d = optim.Adam(discriminator.parameters(), lr=1e-4, betas=(0.5, 0.9), eps=1e-3, weight_decay=self.l2scale)

        for epoch in range(self.epochs):
            for step, data in enumerate(loader):
                real = [item.to(self.device) for item in data]
                noise = torch.randn(self.batch_size, self.random_dim, device=self.device)
                fake = [f.detach() for f in generator(noise)]
                opt_d.zero_grad()
                loss_d = -torch.log(discriminator(real) + 1e-12).mean() - torch.log(
                    1.0 - discriminator(fake) + 1e-12).mean()
                loss_d.backward()
                opt_d.step()

                if (step + 1) % 2 == 0:
                    noise = torch.randn(self.batch_size, self.random_dim, device=self.device)
                    opt_g.zero_grad()
                    loss_g = -torch.log(discriminator(generator(noise)) + 1e-12).mean()
                    loss_g.backward()
                    opt_g.step()
            print(epoch, loss_d.item())
        torch.save({"generator": generator.state_dict(), "discriminator": discriminator.state_dict(),
                    "opt_g": opt_g.state_dict(), "opt_d": opt_d.state_dict()},
                   os.path.join(self.working_dir, "model.tar"))

    @torch.no_grad()
    def sample(self, n):
        generator = Generator(self.random_dim, self.generator_dim, self.transformer.output_info).to(self.device)
        checkpoint = torch.load(os.path.join(self.working_dir, "model.tar"), map_location=self.device,
                                weights_only=True)
        generator.load_state_dict(checkpoint["generator"])
        generator.eval()
        columns = [[] for _ in self.transformer.output_info]
        for _ in range(n // self.batch_size + 1):
            noise = torch.randn(self.batch_size, self.random_dim, device=self.device)
            for i, item in enumerate(generator(noise)):
                columns[i].append(item.cpu().numpy())
        columns = [np.concatenate(c, axis=0)[:n] for c in columns]
        return self.transformer.inverse_transform(columns)
