import time

import torch
from torch.amp import GradScaler, autocast

ACCELERATOR_EMPTY_CACHE_SCHEDULE = 10


def train(model, tokenizer, iterator_train, optimizer, lr_scheduler, max_steps, grad_norm_clip=1.0, use_amp=True):
    grad_scaler = GradScaler(device="cuda", enabled=use_amp)
    losses = []
    durations = []
    memory_reserved_log = []
    model.train()
    for step, batch in zip(range(1, max_steps + 1), iterator_train):
        tic = time.perf_counter()
        batch = tokenizer.pad(batch, return_tensors="pt").to(model.device)
        labels = batch["input_ids"].clone()
        batch["labels"] = labels

        optimizer.zero_grad()
        with autocast(device_type="cuda", enabled=use_amp):
            outputs = model(**batch)
            loss = outputs.loss
        grad_scaler.scale(loss).backward()
        if grad_norm_clip:
            grad_scaler.unscale_(optimizer)
            torch.nn.utils.clip_grad_norm_(model.parameters(), grad_norm_clip)
        grad_scaler.step(optimizer)
        grad_scaler.update()
        lr_scheduler.step()

        losses.append(loss.item())
        memory_reserved_log.append(torch.cuda.memory_reserved())
        durations.append(time.perf_counter() - tic)

        if step % ACCELERATOR_EMPTY_CACHE_SCHEDULE == 0:
            torch.cuda.empty_cache()
    return losses, durations, memory_reserved_log
