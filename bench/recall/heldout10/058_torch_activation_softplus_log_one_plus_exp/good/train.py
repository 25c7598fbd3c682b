import torch
import torch.nn as nn

from sigmoid_weighted import PFPM, PSerf


def main():
    torch.manual_seed(0)
    model = nn.Sequential(
        nn.Linear(16, 32),
        PSerf(learnable=True),
        nn.Linear(32, 32),
        PFPM(32),
        nn.Linear(32, 1),
    )
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    x = torch.randn(256, 16)
    y = x.pow(2).sum(dim=1, keepdim=True)
    for step in range(200):
        optimizer.zero_grad()
        loss = nn.functional.mse_loss(model(x), y)
        loss.backward()
        optimizer.step()
        if step % 50 == 0:
            print(step, loss.item())


if __name__ == "__main__":
    main()
