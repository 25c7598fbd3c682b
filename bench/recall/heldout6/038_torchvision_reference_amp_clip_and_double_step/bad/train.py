import torch
from torch import nn


def train_one_epoch(model, criterion, optimizer, data_loader, device, args, scaler=None):
    model.train()
    for image, target in data_loader:
        image, target = image.to(device), target.to(device)
        output = model(image)
        with torch.cuda.amp.autocast(enabled=scaler is not None):
            loss = criterion(output, target)
        optimizer.zero_grad()
        if scaler is not None:
            scaler.scale(loss).backward()
            scaler.step(optimizer)
            scaler.update()
        else:
            loss.backward()
        if args.clip_grad_norm is not None:
            nn.utils.clip_grad_norm_(model.parameters(), args.clip_grad_norm)  # expect: TCK305
        optimizer.step()  # expect: TCK307
