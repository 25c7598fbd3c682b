import os

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader
from torchvision.datasets import MNIST
from torchvision.transforms import Compose, Normalize, ToTensor


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 10, kernel_size=5)
        self.conv2 = nn.Conv2d(10, 20, kernel_size=5)
        self.conv2_drop = nn.Dropout2d()
        self.fc1 = nn.Linear(320, 50)
        self.fc2 = nn.Linear(50, 10)

    def forward(self, x):
        x = F.relu(F.max_pool2d(self.conv1(x), 2))
        x = F.relu(F.max_pool2d(self.conv2_drop(self.conv2(x)), 2))
        x = F.relu(self.fc1(x.flatten(1)))
        x = F.dropout(x, training=self.training)
        return F.log_softmax(self.fc2(x), dim=-1)


def get_data_loaders(train_batch_size, val_batch_size):
    transform = Compose([ToTensor(), Normalize((0.1307,), (0.3081,))])
    train = MNIST("data", train=True, download=True, transform=transform)
    val = MNIST("data", train=False, download=True, transform=transform)
    return DataLoader(train, batch_size=train_batch_size, shuffle=True), DataLoader(val, batch_size=val_batch_size)


def validate(model, val_loader):
    model.eval()
    num_correct, num_examples = 0, 0
    with torch.no_grad():
        for images, target in val_loader:
            pred = model(images).argmax(dim=1)
            num_correct += (pred == target).sum().item()
            num_examples += target.shape[0]
    return num_correct / num_examples


def checkpoint(model, optimizer, checkpoint_dir, iteration):
    os.makedirs(checkpoint_dir, exist_ok=True)
    torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict()},
               os.path.join(checkpoint_dir, f"checkpoint_{iteration}.pt"))


def main(max_epochs=10, validate_every=100, checkpoint_every=1000):
    model = Net()
    train_loader, val_loader = get_data_loaders(64, 1000)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.8)
    criterion = nn.NLLLoss()

    iteration = 0
    model.train()
    for epoch in range(max_epochs):
        for images, target in train_loader:
            optimizer.zero_grad()
            loss = criterion(model(images), target)
            loss.backward()
            optimizer.step()

            if iteration % validate_every == 0:
                accuracy = validate(model, val_loader)  # expect: TCK106
                print(f"epoch {epoch} iteration {iteration}: val accuracy {accuracy:.3f}")
            if iteration % checkpoint_every == 0:
                checkpoint(model, optimizer, "checkpoints", iteration)
            iteration += 1


if __name__ == "__main__":
    main()
