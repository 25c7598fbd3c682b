import torch
import torch.nn.functional as F
from torch import nn
from torchvision import datasets, transforms

from condrop import ConcreteDropout, concrete_regulariser


@concrete_regulariser
class MLPConcreteDropout(nn.Module):
    def __init__(self, n_hidden=512):
        super().__init__()
        self.fc1 = nn.Linear(784, n_hidden)
        self.fc2 = nn.Linear(n_hidden, n_hidden)
        self.fc3 = nn.Linear(n_hidden, 10)
        self.cd1 = ConcreteDropout()
        self.cd2 = ConcreteDropout()
        self.cd3 = ConcreteDropout()
        self.relu = nn.ReLU()
        self.softmax = nn.Softmax(dim=1)

    def forward(self, x):
        x = x.view(-1, 784)
        x = self.cd1(x, nn.Sequential(self.fc1, self.relu))
        x = self.cd2(x, nn.Sequential(self.fc2, self.relu))
        return self.softmax(self.cd3(x, self.fc3))


def train(model, trainloader, optimiser, device):
    model.train()
    total = 0.0
    for data, labels in trainloader:
        data, labels = data.to(device), labels.to(device)
        optimiser.zero_grad()
        outputs = model(data)
        loss = F.cross_entropy(outputs, labels) + model.regularisation()  # expect: TCK605
        loss.backward()
        optimiser.step()
        total += loss.item() * data.size(0)
    return total / len(trainloader.dataset)


@torch.no_grad()
def test(model, testloader, device):
    model.eval()
    correct = 0
    test_loss = 0.0
    for data, labels in testloader:
        data, labels = data.to(device), labels.to(device)
        outputs = model(data)
        test_loss += F.cross_entropy(outputs, labels).item() * data.size(0)  # expect: TCK605
        preds = outputs.argmax(dim=1)
        correct += (preds == labels).sum().item()
    return test_loss / len(testloader.dataset), correct / len(testloader.dataset)


if __name__ == "__main__":
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    transform = transforms.Compose([transforms.ToTensor(), transforms.Normalize((0.1307,), (0.3081,))])
    trainset = datasets.MNIST("./data", train=True, download=True, transform=transform)
    testset = datasets.MNIST("./data", train=False, download=True, transform=transform)
    trainloader = torch.utils.data.DataLoader(trainset, batch_size=64, shuffle=True)
    testloader = torch.utils.data.DataLoader(testset, batch_size=1000)
    model = MLPConcreteDropout().to(device)
    optimiser = torch.optim.Adam(model.parameters(), lr=1e-3)
    for epoch in range(1, 6):
        train_loss = train(model, trainloader, optimiser, device)
        test_loss, accuracy = test(model, testloader, device)
        print(epoch, train_loss, test_loss, accuracy, [round(m.p.item(), 3) for m in (model.cd1, model.cd2, model.cd3)])
