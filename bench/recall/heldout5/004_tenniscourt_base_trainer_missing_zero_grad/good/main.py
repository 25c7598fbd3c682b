import torch
import torch.nn as nn
from torch.utils.data import DataLoader

from base_trainer import train
from dataset import courtDataset
from tracknet import BallTrackerNet

if __name__ == "__main__":
    device = "cuda"
    model = BallTrackerNet(out_channels=15).to(device)
    train_loader = DataLoader(courtDataset("train"), batch_size=2, shuffle=True, num_workers=1)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-5, betas=(0.9, 0.999), weight_decay=0)
    criterion = nn.MSELoss()
    for epoch in range(500):
        train_loss = train(model, train_loader, optimizer, criterion, device, epoch, max_iters=1000)
        print("epoch {} train loss {}".format(epoch, train_loss))
