import argparse

import torch

from graphormer.encoder import GraphormerEncoder


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--checkpoint", required=True)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    torch.manual_seed(args.seed)
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = GraphormerEncoder().to(device)
    model.load_state_dict(torch.load(args.checkpoint, map_location=device, weights_only=True))
    model.eval()

    atoms = torch.randint(0, 128, (8, 24), device=device)
    dist = torch.randint(0, 10, (8, 24, 24), device=device)
    with torch.inference_mode():
        spectra = model(atoms, dist)
    print(spectra.shape, spectra.sum(-1))


if __name__ == "__main__":
    main()
