import numpy as np
import torch
import torch.nn as nn

from model import JVAE


class JVAETrainer:
    def __init__(self, datasets, n_latent=10, use_cuda=True):
        self.all_dataset = datasets  # list of (n_cells, n_genes) numpy count matrices
        self.use_cuda = use_cuda and torch.cuda.is_available()
        self.model = JVAE([d.shape[1] for d in datasets], n_latent=n_latent)
        self.discriminator = nn.Sequential(nn.Linear(n_latent, 32), nn.ReLU(), nn.Linear(32, len(datasets)))
        if self.use_cuda:
            self.model.cuda()
            self.discriminator.cuda()
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=1e-3)

    def train(self, n_epochs=50, batch_size=128):
        for epoch in range(n_epochs):
            for mode, data in enumerate(self.all_dataset):
                idx = np.random.permutation(len(data))[:batch_size]
                x = torch.from_numpy(data[idx]).float()
                if self.use_cuda:
                    x = x.cuda()
                loss = self.model(x, mode=mode).mean()
                self.optimizer.zero_grad()
                loss.backward()
                self.optimizer.step()

    @torch.no_grad()
    def get_discriminator_confusion(self) -> np.ndarray:
        """A good mixing of the datasets in latent space gives a uniform matrix."""
        confusion = []
        for i, counts in enumerate(self.all_dataset):
            data = torch.from_numpy(counts).float()
            if self.use_cuda:
                data = data.cuda()

            z = self.model.sample_from_posterior_z(data, mode=i, deterministic=True)
            cls_z = nn.Softmax(dim=1)(self.discriminator(z))
            confusion.append(cls_z.cpu().numpy().mean(axis=0))
        return np.array(confusion)
