import torch


def train_one_epoch(config, model, data_loader, optimizer, epoch, lr_scheduler, scaler):
    model.train()
    optimizer.zero_grad()
    num_steps = len(data_loader)
    for idx, (img, mask, _) in enumerate(data_loader):
        img = img.cuda(non_blocking=True)
        mask = mask.cuda(non_blocking=True)
        with torch.autocast("cuda", enabled=config.ENABLE_AMP):
            loss = model(img, mask)
        loss = loss / config.TRAIN.ACCUMULATION_STEPS
        scaler.scale(loss).backward()
        if (idx + 1) % config.TRAIN.ACCUMULATION_STEPS == 0:
            if config.TRAIN.CLIP_GRAD:
                scaler.unscale_(optimizer)
                torch.nn.utils.clip_grad_norm_(model.parameters(), config.TRAIN.CLIP_GRAD)
            scaler.step(optimizer)
            optimizer.zero_grad()
            scaler.update()
            lr_scheduler.step_update(epoch * num_steps + idx)
