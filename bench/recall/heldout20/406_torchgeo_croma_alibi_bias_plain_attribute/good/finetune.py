import torch
from torch import nn

from croma import CROMA


class CromaClassifier(nn.Module):
    def __init__(self, num_classes: int, encoder_dim: int = 768) -> None:
        super().__init__()
        self.backbone = CROMA(modalities=["optical"], encoder_dim=encoder_dim)
        self.head = nn.Linear(encoder_dim, num_classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.backbone(x_optical=x)["optical_GAP"])


def main(epochs: int = 1, steps: int = 10) -> None:
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = CromaClassifier(num_classes=19).to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
    criterion = nn.CrossEntropyLoss()
    model.train()
    for _ in range(epochs):
        for _ in range(steps):
            images = torch.randn(8, 12, 120, 120, device=device)
            labels = torch.randint(0, 19, (8,), device=device)
            loss = criterion(model(images), labels)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()


if __name__ == "__main__":
    main()
