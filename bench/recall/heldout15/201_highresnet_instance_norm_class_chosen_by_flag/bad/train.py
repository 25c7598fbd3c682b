import torch
import torch.nn as nn

from blocks import ConvUnit


class HighResNetLite(nn.Module):
    def __init__(self, in_ch=1, n_classes=4, width=16, instance_norm=True):
        super().__init__()
        flags = dict(batch_norm=not instance_norm, instance_norm=instance_norm)
        self.stem = ConvUnit(in_ch, width, 1, preactivation=False, **flags)
        self.stages = nn.Sequential(
            ConvUnit(width, width, 1, **flags),
            ConvUnit(width, 2 * width, 2, **flags),
            ConvUnit(2 * width, 4 * width, 4, **flags),
        )
        self.head = nn.Conv3d(4 * width, n_classes, kernel_size=1)

    def forward(self, x):
        return self.head(self.stages(self.stem(x)))


def main():
    device = "cuda" if torch.cuda.is_available() else "cpu"
    model = HighResNetLite().to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    criterion = nn.CrossEntropyLoss()
    for step in range(10):
        volume = torch.randn(2, 1, 24, 24, 24, device=device)
        labels = torch.randint(0, 4, (2, 24, 24, 24), device=device)
        optimizer.zero_grad()
        loss = criterion(model(volume), labels)
        loss.backward()
        optimizer.step()
        print(step, loss.item())


if __name__ == "__main__":
    main()
