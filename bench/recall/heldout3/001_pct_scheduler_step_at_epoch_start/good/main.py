import torch
import torch.nn as nn
import torch.optim as optim
from torch.optim.lr_scheduler import CosineAnnealingLR
from torch.utils.data import DataLoader

from data import PointClouds
from model import Pct


def train(args, criterion):
    train_loader = DataLoader(PointClouds("train"), batch_size=args.batch_size, shuffle=True, drop_last=True)
    device = torch.device("cuda" if args.cuda else "cpu")
    model = Pct(args).to(device)
    opt = optim.SGD(model.parameters(), lr=args.lr * 100, momentum=0.9, weight_decay=5e-4)
    scheduler = CosineAnnealingLR(opt, args.epochs, eta_min=args.lr)

    for epoch in range(args.epochs):
        model.train()
        train_loss = 0.0
        for data, label in train_loader:
            data, label = data.to(device), label.to(device).squeeze()
            data = data.permute(0, 2, 1)
            opt.zero_grad()
            logits = model(data)
            loss = criterion(logits, label)
            loss.backward()
            opt.step()
            train_loss += loss.item()
        scheduler.step()
        print(f"epoch {epoch}: {train_loss / len(train_loader):.4f}")
