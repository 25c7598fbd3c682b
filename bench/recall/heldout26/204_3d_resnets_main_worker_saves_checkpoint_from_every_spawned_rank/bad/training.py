import time

import torch


def train_epoch(epoch, data_loader, model, criterion, optimizer, device, current_lr, print_freq=10):
    print(f"train at epoch {epoch} (lr {current_lr:.5f})")
    model.train()
    running_loss = torch.zeros((), device=device)
    correct = torch.zeros((), device=device)
    seen = 0
    end_time = time.time()
    for i, (inputs, targets) in enumerate(data_loader):
        inputs = inputs.to(device, non_blocking=True)
        targets = targets.to(device, non_blocking=True)
        outputs = model(inputs)
        loss = criterion(outputs, targets)

        optimizer.zero_grad()
        loss.backward()
        optimizer.step()

        running_loss += loss.detach() * inputs.size(0)
        correct += (outputs.argmax(1) == targets).sum()
        seen += inputs.size(0)
        if i % print_freq == 0:
            print(f"Epoch [{epoch}][{i + 1}/{len(data_loader)}] time {time.time() - end_time:.2f}s "
                  f"loss {running_loss.item() / seen:.4f} acc {correct.item() / seen:.3f}")
            end_time = time.time()
