import torch
from torch.amp import GradScaler, autocast


def train_one_epoch(params, model, optimizer, scheduler, train_dl, scaler: GradScaler, device):
    model.train()
    for batch_idx, batch in enumerate(train_dl):
        params.batch_idx_train += 1
        video = batch["video"].to(device)
        targets = batch["targets"]
        with autocast("cuda", enabled=params.use_fp16):
            loss, info = compute_loss(params, model, video, targets)
        scaler.scale(loss).backward()

        # scaler.unscale_(optimizer)

        grad_norm = torch.nn.utils.clip_grad_norm_(  # expect: TCK305
            model.parameters(),
            max_norm=1.0,
        )

        scheduler.step_batch(params.batch_idx_train)
        scaler.step(optimizer)
        scaler.update()
        optimizer.zero_grad()

        if batch_idx % params.log_interval == 0:
            print(batch_idx, loss.item(), grad_norm.item())


def compute_loss(params, model, video, targets):
    raise NotImplementedError
