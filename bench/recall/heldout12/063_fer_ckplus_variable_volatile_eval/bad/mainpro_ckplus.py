import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.autograd import Variable
from torch.utils.data import DataLoader, TensorDataset


class VGG(nn.Module):
    def __init__(self, num_classes=7):
        super().__init__()
        layers = []
        in_ch = 1
        for out_ch in (64, "M", 128, "M", 256, "M"):
            if out_ch == "M":
                layers.append(nn.MaxPool2d(2))
            else:
                layers += [nn.Conv2d(in_ch, out_ch, 3, padding=1), nn.BatchNorm2d(out_ch), nn.ReLU(inplace=True)]
                in_ch = out_ch
        self.features = nn.Sequential(*layers)
        self.classifier = nn.Linear(256 * 6 * 6, num_classes)

    def forward(self, x):
        out = self.features(x)
        out = F.dropout(out.flatten(1), p=0.5, training=self.training)
        return self.classifier(out)


def train(net, loader, optimizer, criterion, device):
    net.train()
    correct = total = 0
    for inputs, targets in loader:
        inputs, targets = inputs.to(device), targets.to(device)
        optimizer.zero_grad()
        inputs, targets = Variable(inputs), Variable(targets)  # expect: TCK703
        outputs = net(inputs)
        loss = criterion(outputs, targets)
        loss.backward()
        optimizer.step()
        correct += outputs.argmax(dim=1).eq(targets).sum().item()
        total += targets.size(0)
    return 100.0 * correct / total


def test(net, loader, criterion, device):
    net.eval()
    correct = total = 0
    test_loss = 0.0
    for inputs, targets in loader:
        inputs, targets = inputs.to(device), targets.to(device)
        inputs, targets = Variable(inputs, volatile=True), Variable(targets)  # expect: TCK703
        outputs = net(inputs)
        test_loss += criterion(outputs, targets).item()
        correct += outputs.argmax(dim=1).eq(targets).sum().item()
        total += targets.size(0)
    return test_loss / len(loader), 100.0 * correct / total


if __name__ == "__main__":
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    train_set = TensorDataset(torch.randn(256, 1, 48, 48), torch.randint(0, 7, (256,)))
    test_set = TensorDataset(torch.randn(64, 1, 48, 48), torch.randint(0, 7, (64,)))
    trainloader = DataLoader(train_set, batch_size=32, shuffle=True)
    testloader = DataLoader(test_set, batch_size=32)
    net = VGG().to(device)
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(net.parameters(), lr=0.01, momentum=0.9, weight_decay=5e-4)
    for epoch in range(5):
        train_acc = train(net, trainloader, optimizer, criterion, device)
        test_loss, test_acc = test(net, testloader, criterion, device)
        print(epoch, train_acc, test_loss, test_acc)
