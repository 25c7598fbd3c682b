import math
import os
import time
from contextlib import nullcontext

import torch
from torch.distributed import destroy_process_group, init_process_group
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler

from model import ModelArgs, Transformer

save_dir = "out/pretrain"
max_epoch = 2
log_interval = 100
save_interval = 1000
gradient_accumulation_steps = 1
learning_rate, min_lr = 3e-4, 1e-5
warmup_iters, lr_decay_iters = 1000, 80000
grad_clip = 1.0


def get_lr(it):
    if it < warmup_iters:
        return learning_rate * it / warmup_iters
    if it > lr_decay_iters:
        return min_lr
    ratio = (it - warmup_iters) / (lr_decay_iters - warmup_iters)
    return min_lr + 0.5 * (1.0 + math.cos(math.pi * ratio)) * (learning_rate - min_lr)


def train_epoch(epoch):
    start_time = time.time()
    for step, (X, Y) in enumerate(train_loader):
        X, Y = X.to(device), Y.to(device)
        for group in optimizer.param_groups:
            group["lr"] = get_lr(epoch * iter_per_epoch + step)
        with ctx:
            model(X, Y)
            loss = raw_model.last_loss / gradient_accumulation_steps
        scaler.scale(loss).backward()
        if (step + 1) % gradient_accumulation_steps == 0:
            scaler.unscale_(optimizer)
            torch.nn.utils.clip_grad_norm_(model.parameters(), grad_clip)
            scaler.step(optimizer)
            scaler.update()
            optimizer.zero_grad(set_to_none=True)
        if step % log_interval == 0:
            print("Epoch:[{}/{}]({}/{}) loss:{:.3f} {:.1f}s".format(
                epoch, max_epoch, step, iter_per_epoch, loss.item(), time.time() - start_time))
        if step % save_interval == 0:
            if ddp and torch.distributed.get_rank() == 0:
                model.eval()
                torch.save(model.module.state_dict(), "{}/iter_{}.pth".format(save_dir, int(step + epoch * iter_per_epoch)))
                model.train()
            else:
                model.eval()
                torch.save(model.state_dict(), "{}/iter_{}.pth".format(save_dir, int(step + epoch * iter_per_epoch)))  # expect: TCK208
                model.train()


if __name__ == "__main__":
    os.makedirs(save_dir, exist_ok=True)
    ddp = int(os.environ.get("RANK", -1)) != -1
    if ddp:
        init_process_group(backend="nccl")
        ddp_local_rank = int(os.environ["LOCAL_RANK"])
        device = f"cuda:{ddp_local_rank}"
        torch.cuda.set_device(device)
    else:
        device = "cuda:0" if torch.cuda.is_available() else "cpu"
    torch.manual_seed(1337)
    ctx = nullcontext() if device == "cpu" else torch.amp.autocast(device_type="cuda", dtype=torch.bfloat16)
    scaler = torch.amp.GradScaler("cuda", enabled=False)

    tokens = torch.randint(0, 64793, (4096, 513))
    train_ds = TensorDataset(tokens[:, :-1], tokens[:, 1:])
    train_sampler = DistributedSampler(train_ds) if ddp else None
    train_loader = DataLoader(train_ds, batch_size=8, sampler=train_sampler, shuffle=train_sampler is None,
                              pin_memory=True, drop_last=False, num_workers=0)
    iter_per_epoch = len(train_loader)

    model = Transformer(ModelArgs()).to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=learning_rate, weight_decay=0.1, betas=(0.9, 0.95))
    if ddp:
        model = DDP(model, device_ids=[ddp_local_rank])
    raw_model = model.module if ddp else model

    for epoch in range(max_epoch):
        if ddp:
            train_sampler.set_epoch(epoch)
        train_epoch(epoch)
        if ddp and torch.distributed.get_rank() == 0:
            torch.save(raw_model.state_dict(), "{}/epoch_{}.pth".format(save_dir, epoch))
        else:
            torch.save(raw_model.state_dict(), "{}/epoch_{}.pth".format(save_dir, epoch))  # expect: TCK208
    if ddp:
        destroy_process_group()
