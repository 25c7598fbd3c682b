import torch
import torch.nn as nn
import torch.nn.functional as F
from torchvision import datasets, transforms
from torch.utils.data import DataLoader

from math_utils import MixtureDistribution


class TemplateDecoder(nn.Module):
    """Renders learned templates at predicted intensities and presence logits."""

    def __init__(self, num_templates=16, size=28):
        super().__init__()
        self.templates = nn.Parameter(torch.rand(num_templates, 1, size, size))
        self.background = nn.Parameter(torch.zeros(1, 1, 1, 1, 1))

    def forward(self, presence_logits, intensities):
        b = presence_logits.size(0)
        means = self.templates.unsqueeze(0) * intensities[..., None, None, None]
        means = torch.cat([means, self.background.expand(b, 1, *means.shape[2:])], dim=1)
        logits = torch.cat([presence_logits, torch.zeros(b, 1, device=presence_logits.device)], dim=1)
        logits = logits[..., None, None, None].expand_as(means)
        return MixtureDistribution(logits, means, std=0.075)


class PartCapsuleAE(nn.Module):
    def __init__(self, num_templates=16):
        super().__init__()
        self.encoder = nn.Sequential(
            nn.Conv2d(1, 64, 3, stride=2, padding=1), nn.ReLU(),
            nn.Conv2d(64, 64, 3, stride=2, padding=1), nn.ReLU(),
            nn.Flatten(), nn.Linear(64 * 7 * 7, 2 * num_templates),
        )
        self.decoder = TemplateDecoder(num_templates)
        self.num_templates = num_templates

    def forward(self, images):
        out = self.encoder(images)
        presence_logits, intensity = out.split(self.num_templates, dim=1)
        return self.decoder(presence_logits, F.softplus(intensity))


def main():
    device = "cuda" if torch.cuda.is_available() else "cpu"
    loader = DataLoader(datasets.MNIST("./data", train=True, download=True, transform=transforms.ToTensor()),
                        batch_size=128, shuffle=True, num_workers=4)
    model = PartCapsuleAE().to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-4)
    for epoch in range(10):
        for step, (images, _) in enumerate(loader):
            images = images.to(device)
            mixture = model(images)
            loss = -mixture.log_prob(images).sum(dim=(1, 2)).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            if step % 100 == 0:
                print(f"epoch {epoch} step {step}: nll {loss.item():.2f}")


if __name__ == "__main__":
    main()
