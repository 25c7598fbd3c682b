import torch
import torch.nn.functional as F
from torch import nn


class Network(nn.Module):
    def __init__(self, n_channels=9, n_classes=6):
        super().__init__()
        self.conv1 = nn.Sequential(nn.Conv2d(n_channels, 32, kernel_size=(1, 9)), nn.ReLU(), nn.MaxPool2d((1, 2)))
        self.conv2 = nn.Sequential(nn.Conv2d(32, 64, kernel_size=(1, 9)), nn.ReLU(), nn.MaxPool2d((1, 2)))
        self.fc1 = nn.Linear(64 * 26, 1000)
        self.fc2 = nn.Linear(1000, n_classes)

    def forward(self, x):
        out = self.conv2(self.conv1(x)).reshape(x.size(0), -1)
        out = self.fc2(F.relu(self.fc1(out)))
        return F.softmax(out, dim=1)


def train(model, optimizer, train_loader, epochs):
    criterion = nn.CrossEntropyLoss()
    for epoch in range(epochs):
        model.train()
        for sample, target in train_loader:
            output = model(sample.float())
            loss = criterion(output, target.long())  # expect: TCK605
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
