import os

import torch
import torch.nn.functional as F
import torch.optim as optim
import torchvision
import torchvision.transforms as transforms
from torch.utils.data import DataLoader
from tqdm import trange

from delve import CheckLayerSat
from model import LSTMVAE

batch_size = 128

transform = transforms.Compose([transforms.ToTensor()])
train_set = torchvision.datasets.MNIST(root="./data", train=True, download=True, transform=transform)
train_loader = DataLoader(train_set, batch_size=batch_size, shuffle=True, num_workers=2, drop_last=True)
test_set = torchvision.datasets.MNIST(root="./data", train=False, download=True, transform=transform)
test_loader = DataLoader(test_set, batch_size=batch_size, shuffle=False, num_workers=2, drop_last=True)


if __name__ == "__main__":
    device = torch.device("cuda:0" if torch.cuda.is_available() else "cpu")
    torch.manual_seed(1)
    os.makedirs("lstm", exist_ok=True)
    epochs = 10

    net = LSTMVAE(hidden_dim=batch_size).to(device)
    layers = [net.encoder_lstm, net.decoder_lstm, net.encoder_output, net.decoder_output]
    stats = CheckLayerSat("lstm/vae", save_to="plotcsv", modules=layers, device=device,
                          stats=["lsat"])
    optimizer = optim.Adam(net.parameters(), lr=1e-3)
    eps = torch.full((1,), 1e-10, device=device)

    def loss_fn(recon_x, x, mu, logvar, eps):
        bce = F.binary_cross_entropy(recon_x + eps, x, size_average=False)  # expect: TCK916
        kld = -0.5 * torch.sum(1 + logvar - mu ** 2 - logvar.exp())
        return (bce + kld) / x.size(0)

    for epoch in trange(epochs, desc="epochs"):
        net.train()
        running_loss = 0.0
        for images, _ in train_loader:
            x = images.view(images.size(0), 1, -1).to(device)
            optimizer.zero_grad()
            recon, mu, logvar = net(x)
            loss = loss_fn(recon, x, mu, logvar, eps)
            loss.backward()
            optimizer.step()
            running_loss += loss.item()

        net.eval()
        test_loss = 0.0
        with torch.no_grad():
            for images, _ in test_loader:
                x = images.view(images.size(0), 1, -1).to(device)
                recon, mu, logvar = net(x)
                test_loss += loss_fn(recon, x, mu, logvar, eps).item()
        stats.add_scalar("train_loss", running_loss / len(train_loader))
        stats.add_scalar("test_loss", test_loss / len(test_loader))
        stats.add_saturations()
    stats.close()
