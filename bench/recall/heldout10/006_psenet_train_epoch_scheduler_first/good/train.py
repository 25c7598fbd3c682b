import os
import time

import torch
import torch.nn as nn
import torch.utils.data as Data
from torch.utils.tensorboard import SummaryWriter

from models import PSENet, PSELoss, TextDataset

EPOCHS = 600
LR = 1e-4
LR_DECAY_STEP = [200, 400]
LR_GAMMA = 0.1
DISPLAY_INTERVAL = 10


def train_epoch(net, optimizer, scheduler, train_loader, device, criterion, epoch, all_step, writer):
    net.train()
    train_loss = 0.0
    start = time.time()
    lr = scheduler.get_last_lr()[0]
    for i, (images, labels, training_mask) in enumerate(train_loader):
        images, labels, training_mask = images.to(device), labels.to(device), training_mask.to(device)
        preds = net(images)
        loss_c, loss_s, loss = criterion(preds, labels, training_mask)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        train_loss += loss.item()
        cur_step = epoch * all_step + i
        writer.add_scalar("Train/loss", loss.item(), cur_step)
        if i % DISPLAY_INTERVAL == 0:
            print(f"[{epoch}/{EPOCHS}] [{i}/{all_step}] loss {loss.item():.4f} lr {lr} {time.time() - start:.1f}s")
            start = time.time()
    scheduler.step()
    return train_loss / all_step, lr


def main():
    device = torch.device("cuda:0" if torch.cuda.is_available() else "cpu")
    train_data = TextDataset(os.environ.get("TRAIN_ROOT", "data/train"))
    train_loader = Data.DataLoader(train_data, batch_size=8, shuffle=True, num_workers=4)
    writer = SummaryWriter("output")

    model = PSENet(backbone="resnet50", result_num=6).to(device)
    criterion = PSELoss(Lambda=0.7, ratio=3)
    optimizer = torch.optim.Adam(model.parameters(), lr=LR)
    scheduler = torch.optim.lr_scheduler.MultiStepLR(optimizer, LR_DECAY_STEP, gamma=LR_GAMMA)

    all_step = len(train_loader)
    for epoch in range(EPOCHS):
        train_loss, lr = train_epoch(model, optimizer, scheduler, train_loader, device, criterion, epoch, all_step, writer)
        print(f"epoch {epoch}: train_loss {train_loss:.4f}, lr {lr}")
        torch.save(model.state_dict(), os.path.join("output", "PSENet_last.pth"))
    writer.close()


if __name__ == "__main__":
    main()
