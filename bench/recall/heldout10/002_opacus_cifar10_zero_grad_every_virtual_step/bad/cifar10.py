import argparse

import torch
import torch.nn as nn
import torchvision
import torchvision.transforms as T
from opacus import PrivacyEngine
from torch.utils.data import DataLoader


class ConvNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 32, 3, padding=1), nn.GroupNorm(8, 32), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(32, 64, 3, padding=1), nn.GroupNorm(8, 64), nn.ReLU(), nn.MaxPool2d(2),
        )
        self.head = nn.Linear(64 * 8 * 8, 10)

    def forward(self, x):
        return self.head(self.features(x).flatten(1))


def train(args, model, train_loader, optimizer, epoch, device):
    model.train()
    criterion = nn.CrossEntropyLoss()
    losses = []
    for i, (images, target) in enumerate(train_loader):
        images, target = images.to(device), target.to(device)
        output = model(images)
        loss = criterion(output, target)
        optimizer.zero_grad()  # expect: TCK111
        loss.backward()
        # take a real step every n_accumulation_steps batches, otherwise only a virtual one
        if ((i + 1) % args.n_accumulation_steps == 0) or ((i + 1) == len(train_loader)):
            optimizer.step()
        else:
            optimizer.virtual_step()
        losses.append(loss.item())
    print(f"epoch {epoch}: loss {sum(losses) / len(losses):.4f}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--batch-size", type=int, default=256)
    parser.add_argument("--n-accumulation-steps", type=int, default=4)
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--sigma", type=float, default=1.5)
    parser.add_argument("--max-per-sample-grad-norm", type=float, default=10.0)
    args = parser.parse_args()
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

    transform = T.Compose([T.ToTensor(), T.Normalize((0.49, 0.48, 0.45), (0.25, 0.24, 0.26))])
    train_set = torchvision.datasets.CIFAR10("data", train=True, download=True, transform=transform)
    train_loader = DataLoader(train_set, batch_size=args.batch_size, shuffle=True, num_workers=2)

    model = ConvNet().to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    privacy_engine = PrivacyEngine(
        model,
        batch_size=args.batch_size * args.n_accumulation_steps,
        sample_size=len(train_set),
        alphas=[1 + x / 10.0 for x in range(1, 100)] + list(range(12, 64)),
        noise_multiplier=args.sigma,
        max_grad_norm=args.max_per_sample_grad_norm,
    )
    privacy_engine.attach(optimizer)

    for epoch in range(1, args.epochs + 1):
        train(args, model, train_loader, optimizer, epoch, device)


if __name__ == "__main__":
    main()
