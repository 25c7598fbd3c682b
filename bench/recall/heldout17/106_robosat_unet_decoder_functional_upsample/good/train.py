import torch
import torch.nn as nn

from unet import UNet


def main():
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    net = UNet(num_classes=2, pretrained=False).to(device)
    criterion = nn.CrossEntropyLoss(weight=torch.tensor([0.3, 0.7], device=device))
    optimizer = torch.optim.Adam(net.parameters(), lr=1e-4, weight_decay=1e-4)

    net.train()
    for step in range(50):
        images = torch.randn(4, 3, 256, 256, device=device)
        masks = torch.randint(0, 2, (4, 256, 256), device=device)
        optimizer.zero_grad()
        loss = criterion(net(images), masks)
        loss.backward()
        optimizer.step()
        if step % 10 == 0:
            print(step, loss.item())


if __name__ == "__main__":
    main()
