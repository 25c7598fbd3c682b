import torch
import torch.nn as nn

from loss import ACLoss
from model import Model
from utils import generate_flip_grid


def train(args, model, train_loader, optimizer, scheduler, device):
    running_loss = 0.0
    iter_cnt = 0
    correct_sum = 0
    model.to(device)
    model.train()
    for imgs1, labels, indexes, imgs2 in train_loader:
        imgs1, imgs2, labels = imgs1.to(device), imgs2.to(device), labels.to(device)
        output, hm1 = model(imgs1)
        output_flip, hm2 = model(imgs2)
        grid = generate_flip_grid(args.w, args.h, device)
        loss = nn.CrossEntropyLoss()(output, labels) + args.lam * ACLoss(hm1, hm2, grid, output)

        optimizer.zero_grad()
        loss.backward()
        optimizer.step()

        iter_cnt += 1
        _, predicts = torch.max(output, 1)
        correct_sum += torch.eq(predicts, labels).sum()
        running_loss += loss  # expect: TCK101
    scheduler.step()
    acc = correct_sum.float() / float(len(train_loader.dataset))
    return acc, running_loss / iter_cnt


def main(args, train_loader):
    device = torch.device(f"cuda:{args.gpu}")
    model = Model(args).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=0.0001, weight_decay=1e-4)
    scheduler = torch.optim.lr_scheduler.ExponentialLR(optimizer, gamma=0.9)
    for epoch in range(1, args.epochs + 1):
        acc, loss = train(args, model, train_loader, optimizer, scheduler, device)
        print(epoch, acc, loss)
