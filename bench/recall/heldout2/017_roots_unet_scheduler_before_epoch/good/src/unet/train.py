import torch
from torch.optim.lr_scheduler import ExponentialLR

from unet.model import UNetGNRes


def train_epoch(cnn, loader, optimizer, loss_fn):
    cnn.train()
    total = 0.0
    for photos, masks in loader:
        photos, masks = photos.cuda(), masks.cuda()
        optimizer.zero_grad()
        outputs = cnn(photos)
        loss = loss_fn(outputs, masks)
        loss.backward()
        optimizer.step()
        total += loss.item()
    return total / len(loader)


def train(train_loader, val_loader, loss_fn, epochs=60):
    cnn = UNetGNRes().cuda()
    optimizer = torch.optim.SGD(cnn.parameters(), lr=0.01, momentum=0.99, nesterov=True)
    scheduler = ExponentialLR(optimizer, gamma=0.985)
    for epoch in range(epochs):
        train_loss = train_epoch(cnn, train_loader, optimizer, loss_fn)
        scheduler.step()
        print(f"epoch {epoch} train loss {train_loss:.4f}")
    return cnn
