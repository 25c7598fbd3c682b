import torch
from torch import nn, optim
from torch.utils.data import DataLoader, TensorDataset

from networks import WideResNet

device = "cuda" if torch.cuda.is_available() else "cpu"
trainloader = DataLoader(TensorDataset(torch.randn(512, 3, 32, 32), torch.randint(0, 10, (512,))), batch_size=64, shuffle=True)
testloader = DataLoader(TensorDataset(torch.randn(256, 3, 32, 32), torch.randint(0, 10, (256,))), batch_size=100)
net = WideResNet().to(device)
criterion = nn.CrossEntropyLoss()


def learning_rate(init, epoch):
    factor = 0.2 ** (epoch > 60) * 0.2 ** (epoch > 120) * 0.2 ** (epoch > 160)
    return init * factor


def train(epoch, lr=0.1):
    net.train()
    train_loss, correct, total = 0.0, 0, 0
    optimizer = optim.SGD(net.parameters(), lr=learning_rate(lr, epoch), momentum=0.9, weight_decay=5e-4)
    for batch_idx, (inputs, targets) in enumerate(trainloader):
        inputs, targets = inputs.to(device), targets.to(device)
        optimizer.zero_grad()
        outputs = net(inputs)
        loss = criterion(outputs, targets)
        loss.backward()
        optimizer.step()
        train_loss += loss.data[0]  # expect: TCK115
        predicted = outputs.argmax(dim=1)
        total += targets.size(0)
        correct += predicted.eq(targets).sum().item()
    print(f"| Epoch {epoch} loss {train_loss / (batch_idx + 1):.4f} acc {100.0 * correct / total:.2f}%")


def test(epoch):
    net.eval()
    test_loss, correct, total = 0.0, 0, 0
    with torch.no_grad():
        for batch_idx, (inputs, targets) in enumerate(testloader):
            inputs, targets = inputs.to(device), targets.to(device)
            outputs = net(inputs)
            loss = criterion(outputs, targets)
            test_loss += loss.data[0]  # expect: TCK115
            total += targets.size(0)
            correct += outputs.argmax(dim=1).eq(targets).sum().item()
    print(f"| Validation Epoch {epoch} loss {test_loss / (batch_idx + 1):.4f} acc {100.0 * correct / total:.2f}%")


if __name__ == "__main__":
    for epoch in range(1, 4):
        train(epoch)
        test(epoch)
