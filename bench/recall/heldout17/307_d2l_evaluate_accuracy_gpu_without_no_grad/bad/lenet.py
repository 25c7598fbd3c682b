import torch
from torch import nn
from torch.utils.data import DataLoader
from torchvision import datasets, transforms

from d2l_utils import Accumulator, accuracy, evaluate_accuracy_gpu


def lenet():
    return nn.Sequential(
        nn.Conv2d(1, 6, kernel_size=5, padding=2), nn.Sigmoid(),
        nn.AvgPool2d(kernel_size=2, stride=2),
        nn.Conv2d(6, 16, kernel_size=5), nn.Sigmoid(),
        nn.AvgPool2d(kernel_size=2, stride=2),
        nn.Flatten(),
        nn.Linear(16 * 5 * 5, 120), nn.Sigmoid(),
        nn.Linear(120, 84), nn.Sigmoid(),
        nn.Linear(84, 10),
    )


def train_ch6(net, train_iter, test_iter, num_epochs, lr, device):
    def init_weights(m):
        if type(m) in (nn.Linear, nn.Conv2d):
            nn.init.xavier_uniform_(m.weight)

    net.apply(init_weights)
    net.to(device)
    optimizer = torch.optim.SGD(net.parameters(), lr=lr)
    loss = nn.CrossEntropyLoss()
    for epoch in range(num_epochs):
        metric = Accumulator(3)
        net.train()
        for X, y in train_iter:
            optimizer.zero_grad()
            X, y = X.to(device), y.to(device)
            y_hat = net(X)
            l = loss(y_hat, y)
            l.backward()
            optimizer.step()
            metric.add(l.item() * X.shape[0], accuracy(y_hat, y), X.shape[0])
        test_acc = evaluate_accuracy_gpu(net, test_iter)
        print(f"epoch {epoch + 1}: loss {metric[0] / metric[2]:.3f}, train acc {metric[1] / metric[2]:.3f}, test acc {test_acc:.3f}")


if __name__ == "__main__":
    trans = transforms.ToTensor()
    train_set = datasets.FashionMNIST(root="../data", train=True, transform=trans, download=True)
    test_set = datasets.FashionMNIST(root="../data", train=False, transform=trans, download=True)
    train_iter = DataLoader(train_set, batch_size=256, shuffle=True, num_workers=4)
    test_iter = DataLoader(test_set, batch_size=256, shuffle=False, num_workers=4)
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    train_ch6(lenet(), train_iter, test_iter, num_epochs=10, lr=0.9, device=device)
