import os
import time
from contextlib import nullcontext

import torch
import torch.distributed as dist
from torch.distributed.fsdp.sharded_grad_scaler import ShardedGradScaler
from tqdm import tqdm


def train(model, train_dataloader, eval_dataloader, optimizer, lr_scheduler, gradient_accumulation_steps, train_config, local_rank=None, rank=None):
    """Fine-tune the model for train_config.num_epochs and return per-epoch perplexity and loss."""
    if train_config.use_fp16 and train_config.enable_fsdp:
        scaler = ShardedGradScaler()
    elif train_config.use_fp16 and not train_config.enable_fsdp:
        scaler = torch.cuda.amp.GradScaler()
    if train_config.enable_fsdp:
        world_size = int(os.environ["WORLD_SIZE"])
    autocast = torch.cuda.amp.autocast if train_config.use_fp16 else nullcontext

    train_prep, train_loss, epoch_times = [], [], []
    for epoch in range(train_config.num_epochs):
        epoch_start_time = time.perf_counter()
        model.train()
        total_loss = 0.0
        total_length = len(train_dataloader) // gradient_accumulation_steps
        pbar = tqdm(desc=f"Training Epoch: {epoch + 1}", total=total_length, dynamic_ncols=True)
        for step, batch in enumerate(train_dataloader):
            for key in batch.keys():
                if train_config.enable_fsdp:
                    batch[key] = batch[key].to(local_rank)
                else:
                    batch[key] = batch[key].to("cuda:0")
            with autocast():
                loss = model(**batch).loss
            loss = loss / gradient_accumulation_steps
            total_loss += loss.detach().float()
            if train_config.use_fp16:
                # if fp16 is enabled, use gradient scaler to handle gradient update
                scaler.scale(loss).backward()
                if (step + 1) % gradient_accumulation_steps == 0 or step == len(train_dataloader) - 1:
                    if train_config.gradient_clipping > 0.0:
                        scaler.unscale_(optimizer)
                        torch.nn.utils.clip_grad_norm_(model.parameters(), train_config.gradient_clipping)
                    scaler.step(optimizer)
                    scaler.update()
                    optimizer.zero_grad()
                    pbar.update(1)
            else:
                # regular backpropagation when fp16 is not used
                loss.backward()
                if (step + 1) % gradient_accumulation_steps == 0 or step == len(train_dataloader) - 1:
                    if train_config.gradient_clipping > 0.0:
                        torch.nn.utils.clip_grad_norm_(model.parameters(), train_config.gradient_clipping)
                    optimizer.step()
                    optimizer.zero_grad()
                    pbar.update(1)
            pbar.set_description(f"Training Epoch: {epoch + 1}/{train_config.num_epochs}, step {step} (loss: {loss.detach().float()})")
        pbar.close()

        epoch_times.append(time.perf_counter() - epoch_start_time)
        if torch.cuda.device_count() > 1 and train_config.enable_fsdp:
            dist.all_reduce(total_loss, op=dist.ReduceOp.SUM)
        train_epoch_loss = total_loss / len(train_dataloader)
        if train_config.enable_fsdp:
            train_epoch_loss = train_epoch_loss / world_size
        train_prep.append(float(torch.exp(train_epoch_loss)))
        train_loss.append(float(train_epoch_loss))
        lr_scheduler.step()
        if not train_config.enable_fsdp or rank == 0:
            print(f"Epoch {epoch + 1}: train_perplexity={train_prep[-1]:.4f}, train_epoch_loss={train_loss[-1]:.4f}")

    return {"avg_train_prep": sum(train_prep) / len(train_prep), "avg_train_loss": sum(train_loss) / len(train_loss)}
