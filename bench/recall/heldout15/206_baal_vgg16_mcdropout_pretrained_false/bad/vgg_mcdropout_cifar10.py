import argparse

import torch
import torch.nn as nn
from torch.hub import load_state_dict_from_url
from torch.utils.data import DataLoader, Subset, TensorDataset
from torchvision.models import vgg16

VGG16_URL = "https://download.pytorch.org/models/vgg16-397923af.pth"


def fake_cifar(n=256):
    x = torch.randn(n, 3, 32, 32)
    y = torch.randint(0, 10, (n,))
    return TensorDataset(x, y)


def mc_predict(model, loader, device, iterations=8):
    """Monte-Carlo dropout: keep the dropout layers active while predicting."""
    model.eval()
    for m in model.modules():
        if isinstance(m, nn.Dropout):
            m.train()
    probs = []
    with torch.no_grad():
        for x, _ in loader:
            x = x.to(device)
            runs = torch.stack([model(x).softmax(dim=-1) for _ in range(iterations)])
            probs.append(runs.cpu())
    return torch.cat(probs, dim=1)


def bald_scores(probs):
    mean = probs.mean(0)
    entropy = -(mean * mean.clamp_min(1e-12).log()).sum(-1)
    expected = -(probs * probs.clamp_min(1e-12).log()).sum(-1).mean(0)
    return entropy - expected


def main(args):
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    pool = fake_cifar()
    labelled = list(range(20))
    criterion = nn.CrossEntropyLoss()

    model = vgg16(pretrained=False, num_classes=10)  # expect: TCK909
    weights = load_state_dict_from_url(VGG16_URL)
    weights = {k: v for k, v in weights.items() if "classifier.6" not in k}
    missing, unexpected = model.load_state_dict(weights, strict=False)
    assert set(missing) == {"classifier.6.weight", "classifier.6.bias"}, missing
    assert not unexpected, unexpected
    model.to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9)

    for step in range(args.al_steps):
        model.train()
        loader = DataLoader(Subset(pool, labelled), batch_size=8, shuffle=True, num_workers=2)
        for _ in range(args.epochs):
            for x, y in loader:
                x, y = x.to(device), y.to(device)
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
        unlabelled = [i for i in range(len(pool)) if i not in set(labelled)]
        scores = bald_scores(mc_predict(model, DataLoader(Subset(pool, unlabelled), batch_size=32, num_workers=2), device))
        chosen = scores.topk(args.query_size).indices.tolist()
        labelled += [unlabelled[i] for i in chosen]
        print(f"step {step}: {len(labelled)} labelled")


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--lr", type=float, default=0.001)
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--al_steps", type=int, default=2)
    parser.add_argument("--query_size", type=int, default=10)
    main(parser.parse_args())
