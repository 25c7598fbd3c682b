import argparse

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

from multibox_loss import MultiboxLoss

NUM_PRIORS = 3000
NUM_CLASSES = 21


class TinySSD(nn.Module):
    def __init__(self, num_classes=NUM_CLASSES, num_priors=NUM_PRIORS):
        super().__init__()
        self.num_classes = num_classes
        self.num_priors = num_priors
        self.features = nn.Sequential(
            nn.Conv2d(3, 32, 3, stride=2, padding=1), nn.ReLU(inplace=True),
            nn.Conv2d(32, 64, 3, stride=2, padding=1), nn.ReLU(inplace=True),
            nn.AdaptiveAvgPool2d(4),
        )
        self.cls_head = nn.Linear(64 * 16, num_priors * num_classes)
        self.reg_head = nn.Linear(64 * 16, num_priors * 4)

    def forward(self, x):
        f = self.features(x).flatten(1)
        conf = self.cls_head(f).view(-1, self.num_priors, self.num_classes)
        loc = self.reg_head(f).view(-1, self.num_priors, 4)
        return conf, loc


def train(loader, net, criterion, optimizer, device, debug_steps=10):
    net.train()
    running_loss = 0.0
    for i, (images, boxes, labels) in enumerate(loader):
        images, boxes, labels = images.to(device), boxes.to(device), labels.to(device)
        optimizer.zero_grad()
        confidence, locations = net(images)
        regression_loss, classification_loss = criterion(confidence, locations, labels, boxes)
        loss = regression_loss + classification_loss
        loss.backward()
        optimizer.step()
        running_loss += loss.item()
        if i and i % debug_steps == 0:
            print(f"step {i}: avg loss {running_loss / debug_steps:.4f}")
            running_loss = 0.0


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--lr", type=float, default=0.01)
    parser.add_argument("--num_epochs", type=int, default=2)
    args = parser.parse_args()

    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    images = torch.rand(64, 3, 128, 128)
    boxes = torch.rand(64, NUM_PRIORS, 4)
    labels = torch.randint(0, NUM_CLASSES, (64, NUM_PRIORS)) * (torch.rand(64, NUM_PRIORS) > 0.95).long()
    loader = DataLoader(TensorDataset(images, boxes, labels), batch_size=8, shuffle=True, num_workers=2)

    net = TinySSD().to(device)
    priors = torch.rand(NUM_PRIORS, 4)
    criterion = MultiboxLoss(priors, neg_pos_ratio=3).to(device)
    optimizer = torch.optim.SGD(net.parameters(), lr=args.lr, momentum=0.9, weight_decay=5e-4)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, args.num_epochs)
    for epoch in range(args.num_epochs):
        train(loader, net, criterion, optimizer, device)
        scheduler.step()


if __name__ == "__main__":
    main()
