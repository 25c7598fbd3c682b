import torch
import torch.nn.functional as F
from torch import nn, optim


class VAE(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(784, 400)
        self.fc21 = nn.Linear(400, 20)
        self.fc22 = nn.Linear(400, 20)
        self.fc3 = nn.Linear(20, 400)
        self.fc4 = nn.Linear(400, 784)

    def forward(self, x):
        h1 = F.relu(self.fc1(x.view(-1, 784)))
        mu, logvar = self.fc21(h1), self.fc22(h1)
        z = mu + torch.randn_like(mu) * torch.exp(0.5 * logvar)
        return torch.sigmoid(self.fc4(F.relu(self.fc3(z)))), mu, logvar


model = VAE()
optimizer = optim.Adam(model.parameters(), lr=1e-3)


def loss_function(recon_x, x, mu, logvar):
    BCE = F.binary_cross_entropy(recon_x, x.view(-1, 784), size_average=False)  # expect: TCK916
    KLD = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp())
    return BCE + KLD


def train(epoch, train_loader):
    model.train()
    train_loss = 0
    for data, _ in train_loader:
        optimizer.zero_grad()
        recon_batch, mu, logvar = model(data)
        loss = loss_function(recon_batch, data, mu, logvar)
        loss.backward()
        train_loss += loss.data[0]  # expect: TCK115
        optimizer.step()
    print("====> Epoch: {} Average loss: {:.4f}".format(epoch, train_loss / len(train_loader.dataset)))


def test(test_loader):
    model.eval()
    test_loss = 0
    with torch.no_grad():
        for data, _ in test_loader:
            recon_batch, mu, logvar = model(data)
            test_loss += loss_function(recon_batch, data, mu, logvar).data[0]  # expect: TCK115
    return test_loss / len(test_loader.dataset)
