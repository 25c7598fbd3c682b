import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.data import DataLoader
from torchvision import datasets, transforms


class CNN4MNIST(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 16, 5, padding=2)
        self.conv2 = nn.Conv2d(16, 32, 5, padding=2)
        self.fc = nn.Linear(32 * 7 * 7, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        return self.fc(x.flatten(1))


train_set = datasets.MNIST("./data", train=True, download=True, transform=transforms.ToTensor())
loader = DataLoader(train_set, batch_size=64, shuffle=True)
cnn4mnist = CNN4MNIST()
optimizer = torch.optim.Adam(cnn4mnist.parameters(), lr=1e-3)
for epoch in range(2):
    for images, labels in loader:
        optimizer.zero_grad()
        loss = F.cross_entropy(cnn4mnist(images), labels)
        loss.backward()
        optimizer.step()

torch.save(cnn4mnist.state_dict(), "cnn4mnist.pt")
