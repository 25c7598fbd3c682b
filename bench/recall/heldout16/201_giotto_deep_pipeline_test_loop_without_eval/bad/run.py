import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.tensorboard import SummaryWriter

from models import FFNet
from pipeline import Pipeline


def make_loaders():
    x = torch.randn(2000, 20)
    y = (x[:, 0] + x[:, 1] > 0).long()
    train = TensorDataset(x[:1600], y[:1600])
    test = TensorDataset(x[1600:], y[1600:])
    return DataLoader(train, batch_size=64, shuffle=True), DataLoader(test, batch_size=64)


def main():
    model = FFNet(20, 128, 2)
    pipe = Pipeline(model, make_loaders(), nn.CrossEntropyLoss(), SummaryWriter("runs/ffnet"))
    pipe.train(torch.optim.SGD, n_epochs=5, lr=0.01)


if __name__ == "__main__":
    main()
