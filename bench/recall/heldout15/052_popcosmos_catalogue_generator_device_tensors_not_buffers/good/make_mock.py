import argparse

import torch
from torch import nn

from catalogue import CatalogueGenerator, NoiseModel
from constants import SURVEY_FLUX_SOFTENING


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=10000)
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    args = parser.parse_args()

    n_bands = len(SURVEY_FLUX_SOFTENING)
    population = nn.Sequential(nn.Linear(7, 128), nn.SiLU(), nn.Linear(128, 7))
    emulator = nn.Sequential(nn.Linear(7, 256), nn.SiLU(), nn.Linear(256, n_bands), nn.Softplus())
    # built on the CPU (the default "cuda" is not there on the login node), then moved like any module
    generator = CatalogueGenerator(population, emulator, NoiseModel(n_bands), device="cpu")
    generator = generator.to(args.device)
    with torch.no_grad():
        theta, mags = generator(args.n)
    torch.save({"theta": theta.cpu(), "mags": mags.cpu()}, "mock_catalogue.pt")


if __name__ == "__main__":
    main()
