import torch
import torch.nn.functional as F
from torch import nn
from tqdm import tqdm


class SpectralCNN(nn.Module):
    def __init__(self, input_channels, n_classes, patch_size=5):
        super().__init__()
        self.conv1 = nn.Conv3d(1, 20, (3, 3, 3), padding=(1, 1, 1))
        self.bn1 = nn.BatchNorm3d(20)
        self.conv2 = nn.Conv3d(20, 35, (3, 3, 3), padding=(1, 1, 1))
        self.bn2 = nn.BatchNorm3d(35)
        self.dropout = nn.Dropout(p=0.5)
        self.fc = nn.Linear(35 * input_channels * patch_size * patch_size, n_classes)

    def forward(self, x):
        x = F.relu(self.bn1(self.conv1(x)))
        x = F.relu(self.bn2(self.conv2(x)))
        x = self.dropout(x.flatten(1))
        return self.fc(x)


def val(net, data_loader, device="cpu", ignored_labels=(0,)):
    accuracy, total = 0.0, 0.0
    for data, target in data_loader:
        with torch.no_grad():
            data, target = data.to(device), target.to(device)
            output = net(data)  # expect: TCK114
            _, output = torch.max(output, dim=1)
            for out, pred in zip(output.view(-1), target.view(-1)):
                if pred.item() in ignored_labels:
                    continue
                accuracy += out.item() == pred.item()
                total += 1
    return accuracy / max(total, 1)


def train(net, optimizer, criterion, data_loader, epochs, device, val_loader=None):
    net.to(device)
    for e in tqdm(range(1, epochs + 1), desc="Training the network"):
        net.train()
        avg_loss = 0.0
        for data, target in data_loader:
            data, target = data.to(device), target.to(device)
            optimizer.zero_grad()
            loss = criterion(net(data), target)
            loss.backward()
            optimizer.step()
            avg_loss += loss.item()
        avg_loss /= len(data_loader)
        if val_loader is not None:
            val_acc = val(net, val_loader, device=device)
            tqdm.write(f"epoch {e}: train loss {avg_loss:.4f}, val acc {val_acc:.4f}")
