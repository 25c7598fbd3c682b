import os

import torch
from torch.utils.data import DataLoader, TensorDataset

from relay_net import ReLayNet


def train(model, train_loader, num_epochs, exp_dir):
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model.to(device)
    optim = torch.optim.Adam(model.parameters(), lr=1e-2, weight_decay=1e-4)
    loss_func = torch.nn.CrossEntropyLoss()
    for epoch in range(num_epochs):
        model.train()
        for images, labels in train_loader:
            images, labels = images.to(device), labels.to(device)
            optim.zero_grad()
            loss = loss_func(model(images), labels)
            loss.backward()
            optim.step()
        print("[Epoch %d/%d] loss %.4f" % (epoch + 1, num_epochs, loss.item()))
        model.save(os.path.join(exp_dir, "relaynet_epoch%d.model" % (epoch + 1)))


def main():
    exp_dir = "models/Exp01"
    os.makedirs(exp_dir, exist_ok=True)
    images = torch.randn(32, 1, 64, 32)
    labels = torch.randint(0, 10, (32, 64, 32))
    loader = DataLoader(TensorDataset(images, labels), batch_size=4, shuffle=True)
    train(ReLayNet(), loader, num_epochs=2, exp_dir=exp_dir)


if __name__ == "__main__":
    main()
