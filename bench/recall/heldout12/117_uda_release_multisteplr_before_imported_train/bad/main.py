import argparse

import torch
from torch import nn, optim
from torch.utils.data import DataLoader
from torchvision import datasets, transforms

from train_utils import train


class SmallResNet(nn.Module):
    def __init__(self, classes=10, channels=3, width=64):
        super().__init__()
        self.body = nn.Sequential(
            nn.Conv2d(channels, width, 3, padding=1), nn.BatchNorm2d(width), nn.ReLU(),
            nn.Conv2d(width, 2 * width, 3, stride=2, padding=1), nn.BatchNorm2d(2 * width), nn.ReLU(),
            nn.AdaptiveAvgPool2d(1), nn.Flatten(),
        )
        self.fc = nn.Linear(2 * width, classes)

    def features(self, x):
        return self.body(x)

    def forward(self, x):
        return self.fc(self.body(x))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--nepoch", type=int, default=15)
    parser.add_argument("--lr", type=float, default=0.1)
    parser.add_argument("--milestone_1", type=int, default=5)
    parser.add_argument("--milestone_2", type=int, default=10)
    parser.add_argument("--data_root", default="/data/datasets/")
    args = parser.parse_args()

    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    tf = transforms.Compose([transforms.Resize(32), transforms.ToTensor()])
    src = datasets.CIFAR10(args.data_root, train=True, download=True, transform=tf)
    tgt = datasets.STL10(args.data_root, split="test", download=True, transform=tf)
    src_loader = DataLoader(src, batch_size=128, shuffle=True, num_workers=4)
    tgt_loader = DataLoader(tgt, batch_size=128, shuffle=False, num_workers=4)

    net = SmallResNet().to(device)
    rot_head = nn.Linear(128, 4).to(device)
    criterion = nn.CrossEntropyLoss()
    optimizer = optim.SGD(list(net.parameters()) + list(rot_head.parameters()),
                          lr=args.lr, momentum=0.9, weight_decay=5e-4)
    scheduler = optim.lr_scheduler.MultiStepLR(optimizer, [args.milestone_1, args.milestone_2], gamma=0.1)

    all_stats = []
    for epoch in range(1, args.nepoch + 1):
        print(f"epoch {epoch}/{args.nepoch} lr={optimizer.param_groups[0]['lr']:.3f}")
        scheduler.step()  # expect: TCK104
        all_stats.append(train(net, rot_head, criterion, optimizer, src_loader, tgt_loader, device))
        torch.save(all_stats, "loss.pth")


if __name__ == "__main__":
    main()
