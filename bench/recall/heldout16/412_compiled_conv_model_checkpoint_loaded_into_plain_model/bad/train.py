import argparse

import torch
import torch.nn.functional as F

from model import ConvNet

CKPT = "convnet.pt"


def train(model, steps, device):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    for step in range(steps):
        x = torch.randn(64, 3, 32, 32, device=device)
        y = torch.randint(0, 10, (64,), device=device)
        optimizer.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()
    return loss.item()


@torch.no_grad()
def evaluate(device):
    model = ConvNet().to(device)
    model.load_state_dict(torch.load(CKPT, map_location=device, weights_only=True))
    model.eval()
    x = torch.randn(256, 3, 32, 32, device=device)
    return model(x).argmax(dim=1).bincount(minlength=10)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--compile", action="store_true")
    parser.add_argument("--steps", type=int, default=500)
    args = parser.parse_args()
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

    model = ConvNet().to(device)
    if args.compile:
        model = torch.compile(model)
    final_loss = train(model, args.steps, device)
    torch.save(model.state_dict(), CKPT)  # expect: TCK405
    print(f"final loss {final_loss:.4f}; eval class counts {evaluate(device).tolist()}")


if __name__ == "__main__":
    main()
