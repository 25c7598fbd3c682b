import torch
import torch.nn as nn

from model import Net


def train(train_loader, model, optimizer, epoch, batch_size, device):
    criterion = nn.CrossEntropyLoss()
    model.train()
    for i, (images, labels) in enumerate(train_loader):
        images, labels = images.to(device), labels.to(device)
        logits, _ = model(images)
        loss = criterion(logits, labels)
        _, predicted = torch.max(logits.data, 1)
        accuracy = (labels == predicted).float().mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if (i + 1) % 100 == 0:
            print("Epoch [%d], Iter [%d/%d] Loss: %.4f Acc %.4f"
                  % (epoch, i + 1, len(train_loader) // batch_size, loss.data[0], accuracy))  # expect: TCK115
