import torch
from torch import nn

from murenn_layer import MuReNNDirect


class Classifier(nn.Module):
    def __init__(self, J=4, Q=8, n_classes=10):
        super().__init__()
        self.frontend = MuReNNDirect(J=J, Q=Q, T=9, in_channels=1)
        self.head = nn.Linear(Q * J, n_classes)

    def forward(self, x):
        feats = self.frontend(x)  # (B, C, Q, J, N)
        return self.head(feats.mean(-1).flatten(1))


def main():
    device = "cuda" if torch.cuda.is_available() else "cpu"
    model = Classifier().to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    criterion = nn.CrossEntropyLoss()
    for step in range(100):
        x = torch.randn(16, 1, 2**12, device=device)
        y = torch.randint(0, 10, (16,), device=device)
        loss = criterion(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    torch.save(model.state_dict(), "murenn_classifier.pt")


if __name__ == "__main__":
    main()
