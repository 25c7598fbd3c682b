import torch
import torch.nn as nn
import torchvision
import torchvision.transforms as T
from torch.utils.data import DataLoader

from model import ConvNet


class Trainer:
    def __init__(self, model, loader, lr=0.01, device="cuda"):
        self.device = device
        self.model = model.to(device)
        self.loader = loader
        self.criterion = nn.CrossEntropyLoss()
        self.optimizer = torch.optim.SGD(self.model.parameters(), lr=lr, momentum=0.9)

    def _train_step(self, images, labels):
        images, labels = images.to(self.device), labels.to(self.device)
        loss = self.criterion(self.model(images), labels)
        loss.backward()
        self.optimizer.step()
        return loss.item()

    def fit(self, epochs):
        self.model.train()
        for epoch in range(epochs):
            running = 0.0
            for images, labels in self.loader:
                running += self._train_step(images, labels)  # expect: TCK102
            print(f"epoch {epoch}: loss {running / len(self.loader):.4f}")


if __name__ == "__main__":
    transform = T.Compose([T.ToTensor(), T.Normalize((0.5, 0.5, 0.5), (0.5, 0.5, 0.5))])
    train_set = torchvision.datasets.CIFAR10("./data", train=True, download=True, transform=transform)
    loader = DataLoader(train_set, batch_size=128, shuffle=True, num_workers=4)
    Trainer(ConvNet(), loader).fit(epochs=20)
