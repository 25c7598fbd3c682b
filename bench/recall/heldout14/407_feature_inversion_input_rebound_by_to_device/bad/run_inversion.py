import torch
import torch.nn as nn

from inversion import invert_features


def build_encoder():
    return nn.Sequential(
        nn.Conv2d(3, 16, 3, padding=1),
        nn.ReLU(),
        nn.Conv2d(16, 32, 3, stride=2, padding=1),
        nn.ReLU(),
        nn.AdaptiveAvgPool2d(4),
        nn.Flatten(),
    )


def main():
    device = torch.device("cuda:0" if torch.cuda.is_available() else "cpu")
    encoder = build_encoder()
    for p in encoder.parameters():
        p.requires_grad_(False)
    reference = torch.rand(1, 3, 32, 32)
    with torch.no_grad():
        target = encoder(reference)
    recon = invert_features(encoder, target, (1, 3, 32, 32), device=device)
    print("reconstruction error:", (recon.cpu() - reference).abs().mean().item())


if __name__ == "__main__":
    main()
