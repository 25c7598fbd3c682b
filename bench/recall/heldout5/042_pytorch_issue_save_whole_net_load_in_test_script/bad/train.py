import os

import torch
import torch.nn as nn
import torch.optim as optim


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Conv2d(2, 64, 3, padding=1), nn.ReLU(), nn.Conv2d(64, 1, 3, padding=1))

    def forward(self, x):
        return self.body(x)


def checkpoint(model, epoch):
    os.makedirs("checkpoint/multi", exist_ok=True)
    net_g_model_out_path = "checkpoint/multi/netG_model_epoch_{}.pth".format(epoch)
    torch.save(model, net_g_model_out_path)  # expect: TCK402
    print("Checkpoint saved to {}".format(net_g_model_out_path))


def main(train_loader, epochs=3):
    model = Net().cuda()
    optimizer = optim.Adam(model.parameters(), lr=0.01)
    criterion = nn.MSELoss()
    for epoch in range(1, epochs + 1):
        for source, target in train_loader:
            optimizer.zero_grad()
            loss = criterion(model(source.cuda()), target.cuda())
            loss.backward()
            optimizer.step()
        checkpoint(model, epoch)
