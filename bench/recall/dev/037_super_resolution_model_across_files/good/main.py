from math import log10

import torch
import torch.nn as nn
import torch.optim as optim
from torch.utils.data import DataLoader, TensorDataset

from model import Net

cuda = torch.cuda.is_available()
train_set = TensorDataset(torch.rand(64, 1, 32, 32), torch.rand(64, 1, 96, 96))
test_set = TensorDataset(torch.rand(16, 1, 32, 32), torch.rand(16, 1, 96, 96))
training_data_loader = DataLoader(train_set, batch_size=8, shuffle=True)
testing_data_loader = DataLoader(test_set, batch_size=8)

model = Net(upscale_factor=3)
criterion = nn.MSELoss()
if cuda:
    model = model.cuda()
    criterion = criterion.cuda()
optimizer = optim.Adam(model.parameters(), lr=0.01)


def train(epoch):
    epoch_loss = 0
    for input, target in training_data_loader:
        if cuda:
            input, target = input.cuda(), target.cuda()
        optimizer.zero_grad()
        loss = criterion(model(input), target)
        epoch_loss += loss.item()
        loss.backward()
        optimizer.step()
    print("===> Epoch {} Complete: Avg. Loss: {:.4f}".format(epoch, epoch_loss / len(training_data_loader)))


def test():
    avg_psnr = 0
    with torch.no_grad():
        for input, target in testing_data_loader:
            if cuda:
                input, target = input.cuda(), target.cuda()
            mse = criterion(model(input), target)
            avg_psnr += 10 * log10(1 / mse.item())
    print("===> Avg. PSNR: {:.4f} dB".format(avg_psnr / len(testing_data_loader)))


def checkpoint(epoch):
    model_out_path = "model_epoch_{}.pth".format(epoch)
    torch.save(model.state_dict(), model_out_path)
    print("Checkpoint saved to {}".format(model_out_path))


for epoch in range(1, 31):
    train(epoch)
    test()
    checkpoint(epoch)
