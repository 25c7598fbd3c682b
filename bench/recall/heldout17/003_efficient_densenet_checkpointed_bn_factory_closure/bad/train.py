import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

from densenet import DenseNet


def train(epochs=300, batch_size=64, lr=0.1, device="cuda"):
    model = DenseNet(efficient=True).to(device)
    data = TensorDataset(torch.randn(1024, 3, 32, 32), torch.randint(0, 10, (1024,)))
    loader = DataLoader(data, batch_size=batch_size, shuffle=True)
    optimizer = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9, nesterov=True, weight_decay=1e-4)
    scheduler = torch.optim.lr_scheduler.MultiStepLR(optimizer, milestones=[150, 225], gamma=0.1)
    for epoch in range(epochs):
        model.train()
        for x, y in loader:
            x, y = x.to(device), y.to(device)
            loss = F.cross_entropy(model(x), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        scheduler.step()
    torch.save(model.state_dict(), "densenet_efficient.pt")


if __name__ == "__main__":
    train()
