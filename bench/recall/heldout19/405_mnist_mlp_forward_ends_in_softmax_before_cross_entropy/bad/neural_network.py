import torch
import torch.nn.functional as F
from torch import nn, optim
from torch.utils.data import DataLoader
from torchvision import datasets, transforms

batch_size = 32
learning_rate = 1e-2
num_epoches = 20
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

train_dataset = datasets.MNIST(root="./data", train=True, transform=transforms.ToTensor(), download=True)
test_dataset = datasets.MNIST(root="./data", train=False, transform=transforms.ToTensor())
train_loader = DataLoader(train_dataset, batch_size=batch_size, shuffle=True)
test_loader = DataLoader(test_dataset, batch_size=batch_size, shuffle=False)


class Neuralnetwork(nn.Module):
    def __init__(self, in_dim, n_hidden_1, n_hidden_2, out_dim):
        super().__init__()
        self.layer1 = nn.Linear(in_dim, n_hidden_1)
        self.layer2 = nn.Linear(n_hidden_1, n_hidden_2)
        self.layer3 = nn.Linear(n_hidden_2, out_dim)

    def forward(self, x):
        x = self.layer1(x)
        x = self.layer2(x)
        x = self.layer3(x)
        x = F.softmax(x)  # expect: TCK608
        return x


model = Neuralnetwork(28 * 28, 300, 100, 10).to(device)
criterion = nn.CrossEntropyLoss()
optimizer = optim.SGD(model.parameters(), lr=learning_rate)

for epoch in range(num_epoches):
    model.train()
    running_loss = 0.0
    running_acc = 0.0
    for i, (img, label) in enumerate(train_loader, 1):
        img = img.view(img.size(0), -1).to(device)
        label = label.to(device)
        out = model(img)
        loss = criterion(out, label)  # expect: TCK605
        running_loss += loss.item() * label.size(0)
        _, pred = torch.max(out, 1)
        running_acc += (pred == label).sum().item()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if i % 300 == 0:
            print("[{}/{}] Loss: {:.6f}, Acc: {:.6f}".format(
                epoch + 1, num_epoches, running_loss / (batch_size * i), running_acc / (batch_size * i)))
    print("Finish {} epoch, Loss: {:.6f}, Acc: {:.6f}".format(
        epoch + 1, running_loss / len(train_dataset), running_acc / len(train_dataset)))

    model.eval()
    eval_loss = 0.0
    eval_acc = 0.0
    with torch.no_grad():
        for img, label in test_loader:
            img = img.view(img.size(0), -1).to(device)
            label = label.to(device)
            out = model(img)
            loss = criterion(out, label)  # expect: TCK605
            eval_loss += loss.item() * label.size(0)
            _, pred = torch.max(out, 1)
            eval_acc += (pred == label).sum().item()
    print("Test Loss: {:.6f}, Acc: {:.6f}".format(eval_loss / len(test_dataset), eval_acc / len(test_dataset)))

torch.save(model.state_dict(), "./neural_network.pth")
