import torch
import torch.nn.functional as F
from torch.nn.utils import clip_grad_norm_


def train(model, device, train_loader, optimizer, epoch):
    model.train()
    scaler = torch.amp.GradScaler("cuda")
    for batch_idx, (data, target) in enumerate(train_loader):
        data, target = data.to(device), target.to(device)
        optimizer.zero_grad()
        with torch.amp.autocast("cuda"):
            output = model(data)
            loss = F.nll_loss(output, target)
        scaler.scale(loss).backward()
        scaler.unscale_(optimizer)
        clip_grad_norm_(model.parameters(), 12)
        scaler.step(optimizer)
        scaler.update()
        if batch_idx % 10 == 0:
            print(f"epoch {epoch} [{batch_idx}] loss {loss.item():.4f}")
