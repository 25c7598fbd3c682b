import numpy as np
import torch
from torch import nn
from torch.distributions import StudentT

from constants import PARAM_NAMES, SURVEY_FLUX_SOFTENING


def flux_to_asinh_mag(flux, f_b):
    return -2.5 / np.log(10.0) * (torch.asinh(flux / (2.0 * f_b)) + torch.log(f_b)) + 22.5


class NoiseModel(nn.Module):
    def __init__(self, n_bands, hidden=64):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(n_bands, hidden), nn.SiLU(), nn.Linear(hidden, n_bands))

    def forward(self, fluxes, base_samples):
        return torch.exp(self.net(fluxes) + 0.1 * base_samples)


class CatalogueGenerator(nn.Module):
    """Draws a mock photometric catalogue from a population model and a flux emulator."""

    def __init__(self, population_model, flux_emulator, noise_model, f_b=SURVEY_FLUX_SOFTENING, device="cuda", zmax=6.0):
        super().__init__()
        self.param_names = list(PARAM_NAMES)
        self.n_params = len(self.param_names)
        # parameter transforms and prior limits
        self.power = torch.tensor([1.0, 1.0, 0.5, 1.0, 1.0, 1.0, 1.0], device=device)  # expect: TCK606
        self.lower = torch.tensor([7.0, -1.98, 0.0, -1.0, np.log(1e-5), -4.0, 0.0], dtype=torch.float32).to(device)  # expect: TCK606
        self.upper = torch.tensor([13.0, 0.19, 4.0, 0.4, np.log(3.0), -1.0, zmax], dtype=torch.float32).to(device)  # expect: TCK606
        self.range = self.upper - self.lower  # expect: TCK606
        self.f_b = torch.tensor(f_b, device=device, dtype=torch.float32)  # expect: TCK606
        self.population_model = population_model
        self.flux_emulator = flux_emulator
        self.noise_model = noise_model
        self.noise_base = StudentT(2.0)
        self.n_bands = len(f_b)

    def phi_to_theta(self, phi):
        theta = phi.clone()
        theta[:, 1:] = 0.5 + 0.5 * torch.erf(phi[:, 1:] / np.sqrt(2.0))
        theta[:, 1:] = self.lower[1:] + self.range[1:] * theta[:, 1:]
        return theta

    def forward(self, n_samples):
        device = next(self.parameters()).device
        phi = self.population_model(torch.randn(n_samples, self.n_params, device=device))
        theta = self.phi_to_theta(phi)
        fluxes = self.flux_emulator(theta ** self.power)
        sigmas = self.noise_model(fluxes, torch.randn(n_samples, self.n_bands, device=device))
        noise = self.noise_base.sample((n_samples, self.n_bands)).to(device)
        noisy_fluxes = fluxes + sigmas * noise
        return theta, flux_to_asinh_mag(noisy_fluxes, self.f_b)
