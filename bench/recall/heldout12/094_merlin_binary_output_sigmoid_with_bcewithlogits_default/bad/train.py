import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

from outputs.classification import BinaryOutput


class MLPBlock(nn.Sequential):
    def __init__(self, in_features, dims=(256, 128)):
        layers = []
        for dim in dims:
            layers += [nn.Linear(in_features, dim), nn.ReLU()]
            in_features = dim
        super().__init__(*layers)


def main():
    features = torch.randn(4096, 32)
    clicks = (features[:, 0] + 0.5 * features[:, 1] > 0).float()
    loader = DataLoader(TensorDataset(features, clicks), batch_size=256, shuffle=True)
    body = MLPBlock(32)
    head = BinaryOutput()
    head(body(features[:2]))  # materialise the lazy layer before building the optimizer
    optimizer = torch.optim.Adam(list(body.parameters()) + list(head.parameters()), lr=1e-3)
    for epoch in range(5):
        for x, targets in loader:
            optimizer.zero_grad()
            predictions = head(body(x)).squeeze(-1)
            loss = head.loss(predictions, targets)  # expect: TCK605
            loss.backward()
            optimizer.step()
        print(f"epoch {epoch}: loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
