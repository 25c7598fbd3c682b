import torch
from torch.utils.data import DataLoader, TensorDataset

from network import DenseNet

x = torch.randn(2048, 20)
y = (x[:, 0] > 0).long() + (x[:, 1] > 0).long()
train_loader = DataLoader(TensorDataset(x[:1600], y[:1600]), batch_size=64, shuffle=True)
val_loader = DataLoader(TensorDataset(x[1600:], y[1600:]), batch_size=256)

model = DenseNet(in_dim=20, units=(64, 32), num_classes=3)
model.fit(train_loader, val_loader, epochs=10)
