import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

from resnet_3d import resnet50


def main(epochs=2, num_classes=51, device="cuda" if torch.cuda.is_available() else "cpu"):
    clips = torch.randn(32, 3, 16, 112, 112)
    labels = torch.randint(0, num_classes, (32,))
    loader = DataLoader(TensorDataset(clips, labels), batch_size=4, shuffle=True, num_workers=2)
    model = resnet50(num_classes=num_classes).to(device)
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, weight_decay=1e-3)
    scheduler = torch.optim.lr_scheduler.MultiStepLR(optimizer, milestones=[30, 60], gamma=0.1)
    for epoch in range(epochs):
        model.train()
        for x, y in loader:
            x, y = x.to(device), y.to(device)
            loss = criterion(model(x), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        scheduler.step()
        torch.save({"epoch": epoch, "state_dict": model.state_dict(), "optimizer": optimizer.state_dict()}, "checkpoint.pth")


if __name__ == "__main__":
    main()
