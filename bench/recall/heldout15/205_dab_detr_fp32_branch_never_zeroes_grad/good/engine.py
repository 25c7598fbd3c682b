import math
import sys

import torch


def train_one_epoch(model, criterion, data_loader, optimizer, device, epoch, max_norm=0.0, args=None):
    scaler = torch.amp.GradScaler("cuda", enabled=args.amp)
    model.train()
    criterion.train()
    running = 0.0
    for step, (samples, targets) in enumerate(data_loader):
        samples = samples.to(device)
        targets = [{k: v.to(device) for k, v in t.items()} for t in targets]

        with torch.autocast("cuda", enabled=args.amp):
            outputs = model(samples)
            loss_dict = criterion(outputs, targets)
            weight_dict = criterion.weight_dict
            losses = sum(loss_dict[k] * weight_dict[k] for k in loss_dict if k in weight_dict)

        loss_value = losses.item()
        if not math.isfinite(loss_value):
            print("Loss is {}, stopping training".format(loss_value))
            sys.exit(1)

        optimizer.zero_grad()
        if args.amp:
            scaler.scale(losses).backward()
            if max_norm > 0:
                scaler.unscale_(optimizer)
                torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
            scaler.step(optimizer)
            scaler.update()
        else:
            # original backward function
            losses.backward()
            if max_norm > 0:
                torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
            optimizer.step()

        running += loss_value
        if step % 10 == 0:
            print(f"epoch {epoch} step {step} loss {loss_value:.4f}")
    return running / max(1, len(data_loader))
