"""Adversarial autoencoder for metagenomic binning (continuous + categorical latent)."""
import numpy as np
import torch
import torch.nn as nn
from torch.distributions.relaxed_categorical import RelaxedOneHotCategorical


class AAE(nn.Module):
    def __init__(self, ntnf, nsamples, nhiddens=547, nlatent_l=283, nlatent_y=700, sl=0.00964, slr=0.5, _cuda=False, seed=0):
        super().__init__()
        self.ntnf, self.nsamples = ntnf, nsamples
        self.h_n, self.ld, self.y_len = nhiddens, nlatent_l, nlatent_y
        self.sl, self.slr = sl, slr
        self.usecuda = _cuda
        self.rng = np.random.default_rng(seed)
        self.input_len = ntnf + nsamples
        self.encoder = nn.Sequential(
            nn.Linear(self.input_len, self.h_n), nn.BatchNorm1d(self.h_n), nn.LeakyReLU(),
            nn.Linear(self.h_n, self.h_n), nn.BatchNorm1d(self.h_n), nn.LeakyReLU(),
        )
        self.mu = nn.Linear(self.h_n, self.ld)
        self.logvar = nn.Linear(self.h_n, self.ld)
        self.y_vector = nn.Linear(self.h_n, self.y_len)
        self.decoder = nn.Sequential(
            nn.Linear(self.ld + self.y_len, self.h_n), nn.BatchNorm1d(self.h_n), nn.LeakyReLU(),
            nn.Linear(self.h_n, self.input_len),
        )
        self.discriminator_z = nn.Sequential(nn.Linear(self.ld, self.h_n), nn.LeakyReLU(),
                                             nn.Linear(self.h_n, 1), nn.Sigmoid())
        self.discriminator_y = nn.Sequential(nn.Linear(self.y_len, self.h_n), nn.LeakyReLU(),
                                             nn.Linear(self.h_n, 1), nn.Sigmoid())
        if _cuda:
            self.cuda()

    def _reparameterization(self, mu, logvar):
        std = torch.exp(logvar / 2)
        sampled_z = torch.randn_like(mu)
        return sampled_z * std + mu

    def forward(self, depths_in, tnfs_in):
        hidden = self.encoder(torch.cat((depths_in, tnfs_in), 1))
        mu, logvar = self.mu(hidden), self.logvar(hidden)
        y_sample = torch.softmax(self.y_vector(hidden), dim=1)
        z = self._reparameterization(mu, logvar)
        reconstruction = self.decoder(torch.cat((z, y_sample), 1))
        depths_out = torch.softmax(reconstruction[:, : self.nsamples], dim=1)
        tnfs_out = reconstruction[:, self.nsamples:]
        return mu, depths_out, tnfs_out, z, y_sample

    def _sample_priors(self, nrows, temperature):
        device = "cuda" if self.usecuda else "cpu"
        z_prior = torch.randn(nrows, self.ld, device=device)
        ohc = RelaxedOneHotCategorical(torch.tensor([temperature], device=device),
                                       torch.ones([nrows, self.y_len], device=device))
        y_prior = ohc.sample()
        return z_prior, y_prior

    def trainmodel(self, data_loader, nepochs=100, T=0.15, lr=1e-3):
        enc_params = list(self.encoder.parameters()) + list(self.mu.parameters()) + \
            list(self.logvar.parameters()) + list(self.y_vector.parameters())
        dec_params = list(self.decoder.parameters())
        adversarial_loss = nn.BCELoss()
        if self.usecuda:
            adversarial_loss = adversarial_loss.cuda()
        optimizer_E = torch.optim.Adam(enc_params, lr=lr)
        optimizer_D = torch.optim.Adam(dec_params, lr=lr)
        optimizer_D_z = torch.optim.Adam(self.discriminator_z.parameters(), lr=lr)
        optimizer_D_y = torch.optim.Adam(self.discriminator_y.parameters(), lr=lr)

        for epoch in range(nepochs):
            self.train()
            for depths_in, tnfs_in in data_loader:
                nrows = depths_in.shape[0]
                valid = torch.ones(nrows, 1, device="cuda" if self.usecuda else "cpu")
                fake = torch.zeros(nrows, 1, device="cuda" if self.usecuda else "cpu")

                z_prior, y_prior = self._sample_priors(nrows, T)
                if self.usecuda:
                    depths_in = depths_in.cuda()
                    tnfs_in = tnfs_in.cuda()

                # generator (encoder + decoder)
                optimizer_E.zero_grad()
                optimizer_D.zero_grad()
                mu, depths_out, tnfs_out, z_latent, y_latent = self(depths_in, tnfs_in)
                ce = -(depths_out.clamp(min=1e-9).log() * depths_in).sum(dim=1).mean()
                sse = (tnfs_out - tnfs_in).pow(2).sum(dim=1).mean()
                g_loss_adv_z = adversarial_loss(self.discriminator_z(z_latent), valid)
                g_loss_adv_y = adversarial_loss(self.discriminator_y(y_latent), valid)
                ed_loss = ce * (1 - self.slr) + sse * self.slr
                g_loss = (1 - self.sl) * ed_loss + self.sl * (g_loss_adv_z + g_loss_adv_y) / 2
                g_loss.backward()
                optimizer_D.step()
                optimizer_E.step()

                # discriminators
                optimizer_D_z.zero_grad()
                d_z_loss = (adversarial_loss(self.discriminator_z(z_prior), valid)
                            + adversarial_loss(self.discriminator_z(z_latent.detach()), fake)) / 2
                d_z_loss.backward()
                optimizer_D_z.step()

                optimizer_D_y.zero_grad()
                d_y_loss = (adversarial_loss(self.discriminator_y(y_prior), valid)
                            + adversarial_loss(self.discriminator_y(y_latent.detach()), fake)) / 2
                d_y_loss.backward()
                optimizer_D_y.step()
            print(f"epoch {epoch}: ed_loss {ed_loss.item():.4f} d_z {d_z_loss.item():.4f} d_y {d_y_loss.item():.4f}")

    def get_latents(self, new_data_loader):
        self.eval()
        latents = []
        with torch.no_grad():
            for depths_in, tnfs_in in new_data_loader:
                nrows = depths_in.shape[0]
                if self.usecuda:
                    depths_in = depths_in.cuda()
                    tnfs_in = tnfs_in.cuda()
                mu, _, _, _, y_sample = self(depths_in, tnfs_in)
                latents.append(torch.cat((mu, y_sample), 1).cpu().numpy())
        return np.vstack(latents)
