import torch
import torch.nn.functional as F


def train(args, model, device, train_loader, optimizer, scaler, epoch):
    model.train()
    for batch_idx, (data, target) in enumerate(train_loader):
        data, target = data.to(device), target.to(device)
        optimizer.zero_grad()
        with torch.autocast("cuda", dtype=torch.float16):
            output = model(data)
            loss = F.nll_loss(output, target)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
        if batch_idx % args.log_interval == 0:
            print(f"Train Epoch: {epoch} [{batch_idx * len(data)}/{len(train_loader.dataset)}] Loss: {loss.item():.6f}")


def main(args, model, device, train_loader, optimizer, scheduler):
    scaler = torch.amp.GradScaler("cuda")
    for epoch in range(1, args.epochs + 1):
        train(args, model, device, train_loader, optimizer, scaler, epoch)
        scheduler.step()
