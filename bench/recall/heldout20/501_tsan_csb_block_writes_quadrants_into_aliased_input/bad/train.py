import torch
import torch.nn as nn

from tsan import TSAN


def main():
    model = TSAN(scale=2)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-4)
    criterion = nn.L1Loss()
    for step in range(100):
        lr_img = torch.rand(4, 3, 24, 24)
        hr_img = torch.rand(4, 3, 48, 48)
        optimizer.zero_grad()
        loss = criterion(model(lr_img), hr_img)
        loss.backward()
        optimizer.step()
        if step % 10 == 0:
            print(step, loss.item())


if __name__ == "__main__":
    main()
