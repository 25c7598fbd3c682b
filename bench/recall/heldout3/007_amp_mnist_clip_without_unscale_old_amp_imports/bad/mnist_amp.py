import torch
import torch.nn.functional as F
from torch.cuda.amp import GradScaler, autocast  # expect: TCK301
from torch.nn.utils import clip_grad_norm_


def train(model, device, train_loader, optimizer, epoch):
    model.train()
    scaler = GradScaler()  # expect: TCK301
    for batch_idx, (data, target) in enumerate(train_loader):
        data, target = data.to(device), target.to(device)
        optimizer.zero_grad()
        with autocast():  # expect: TCK301
            output = model(data)
            loss = F.nll_loss(output, target)
        scaler.scale(loss).backward()
        clip_grad_norm_(model.parameters(), 12)  # expect: TCK305
        scaler.step(optimizer)
        scaler.update()
        if batch_idx % 10 == 0:
            print(f"epoch {epoch} [{batch_idx}] loss {loss.item():.4f}")
