import torch
import torch.nn as nn
import torch.nn.functional as F


class GatedHead(nn.Module):
    def __init__(self, in_features=10, classes=3):
        super().__init__()
        # per-feature gate, kept on the GPU from the start
        self.w = nn.Parameter(torch.ones(in_features)).cuda()  # expect: TCK108
        self.fc = nn.Linear(in_features, classes)

    def forward(self, x):
        return self.fc(x * torch.sigmoid(self.w))


def main():
    model = GatedHead().cuda()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    print([name for name, _ in model.named_parameters()])
    for step in range(100):
        x = torch.randn(32, 10, device="cuda")
        y = torch.randint(0, 3, (32,), device="cuda")
        loss = F.cross_entropy(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    print(model.w)


if __name__ == "__main__":
    main()
