import argparse

import torch
from torch import nn

from model_loader import StableDiffusionModelLoader, TrainingModel


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--base", required=True)
    parser.add_argument("--lora", default=None)
    parser.add_argument("--steps", type=int, default=100)
    args = parser.parse_args()

    unet = nn.Sequential(nn.Conv2d(4, 64, 3, padding=1), nn.SiLU(), nn.Conv2d(64, 4, 3, padding=1))
    text_encoder = nn.Embedding(49408, 768)
    model = StableDiffusionModelLoader().load(TrainingModel(unet, text_encoder), args.base, args.lora)

    optimizer = torch.optim.AdamW(unet.parameters(), lr=1e-5)
    if model.optimizer_state_dict is not None:
        optimizer.load_state_dict(model.optimizer_state_dict)

    for _ in range(args.steps):
        latents = torch.randn(2, 4, 32, 32)
        noise = torch.randn_like(latents)
        loss = nn.functional.mse_loss(unet(latents + noise), noise)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


if __name__ == "__main__":
    main()
