import torch
import torch.backends.cudnn as cudnn
import torch.nn as nn
import torch.optim as optim
from torch.utils.data import DataLoader, TensorDataset

from evo_model import EvoCNNModel


def get_loaders(batch_size=64):
    def fake(n):
        return TensorDataset(torch.randn(n, 3, 32, 32), torch.randint(0, 10, (n,)))

    return (
        DataLoader(fake(512), batch_size=batch_size, shuffle=True, num_workers=2, pin_memory=True),
        DataLoader(fake(128), batch_size=batch_size, shuffle=False, num_workers=2, pin_memory=True),
    )


class TrainModel(object):
    def __init__(self):
        self.device = "cuda" if torch.cuda.is_available() else "cpu"
        trainloader, validate_loader = get_loaders()
        net = EvoCNNModel().to(self.device)
        cudnn.benchmark = True
        self.net = net
        self.criterion = nn.CrossEntropyLoss()
        self.best_acc = 0.0
        self.trainloader = trainloader
        self.validate_loader = validate_loader

    def log_record(self, msg):
        print(msg)

    def train(self, epoch):
        self.net.train()
        lr = 0.01 if epoch == 0 else 0.1
        optimizer = optim.SGD(self.net.parameters(), lr=lr, momentum=0.9, weight_decay=5e-4)
        running_loss = 0.0
        total = 0
        correct = 0
        for inputs, labels in self.trainloader:
            inputs, labels = inputs.to(self.device), labels.to(self.device)
            optimizer.zero_grad()
            outputs = self.net(inputs)
            loss = self.criterion(outputs, labels)
            loss.backward()
            optimizer.step()
            running_loss += loss.data[0] * labels.size(0)  # expect: TCK115
            _, predicted = torch.max(outputs.data, 1)
            total += labels.size(0)
            correct += (predicted == labels.data).sum().item()
        self.log_record("Train-Epoch:%3d, Loss: %.3f, Acc:%.3f" % (epoch + 1, running_loss / total, correct / total))

    def test(self, epoch):
        self.net.eval()
        test_loss = 0.0
        total = 0
        correct = 0
        with torch.no_grad():
            for inputs, labels in self.validate_loader:
                inputs, labels = inputs.to(self.device), labels.to(self.device)
                outputs = self.net(inputs)
                test_loss += self.criterion(outputs, labels).item() * labels.size(0)
                _, predicted = torch.max(outputs, 1)
                total += labels.size(0)
                correct += (predicted == labels).sum().item()
        acc = correct / total
        self.best_acc = max(self.best_acc, acc)
        self.log_record("Validate-Loss:%.3f, Acc:%.3f" % (test_loss / total, acc))

    def process(self, epochs=3):
        for epoch in range(epochs):
            self.train(epoch)
            self.test(epoch)
        return self.best_acc


if __name__ == "__main__":
    print("fitness:", TrainModel().process())
