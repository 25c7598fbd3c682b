import os

import torch
import torch.distributed as dist
from torch.distributed import destroy_process_group, init_process_group
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler

from model import TinyLlama

save_dir = "out"
max_epoch = 2
save_interval = 50


def train_epoch(epoch, model, loader, optimizer, device, ddp):
    model.train()
    for step, (X, Y) in enumerate(loader):
        X, Y = X.to(device), Y.to(device)
        _, loss = model(X, Y)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        if step % save_interval == 0:
            if ddp:
                if dist.get_rank() == 0:
                    torch.save(model.module.state_dict(), f"{save_dir}/iter_{step + epoch * len(loader)}.pth")
            else:
                torch.save(model.state_dict(), f"{save_dir}/iter_{step + epoch * len(loader)}.pth")


if __name__ == "__main__":
    ddp = int(os.environ.get("RANK", -1)) != -1
    if ddp:
        init_process_group(backend="nccl")
        local_rank = int(os.environ["LOCAL_RANK"])
        device = f"cuda:{local_rank}"
        torch.cuda.set_device(device)
    else:
        device = "cuda" if torch.cuda.is_available() else "cpu"
    os.makedirs(save_dir, exist_ok=True)

    tokens = torch.randint(0, 512, (1024, 65))
    dataset = TensorDataset(tokens[:, :-1], tokens[:, 1:])
    sampler = DistributedSampler(dataset) if ddp else None
    loader = DataLoader(dataset, batch_size=16, sampler=sampler, shuffle=(sampler is None), drop_last=True)

    model = TinyLlama().to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4, weight_decay=0.1)
    if ddp:
        model = DDP(model, device_ids=[local_rank])
    raw_model = model.module if ddp else model

    for epoch in range(max_epoch):
        if sampler is not None:
            sampler.set_epoch(epoch)
        train_epoch(epoch, model, loader, optimizer, device, ddp)
        if ddp:
            if dist.get_rank() == 0:
                torch.save(raw_model.state_dict(), f"{save_dir}/epoch_{epoch}.pth")
        else:
            torch.save(raw_model.state_dict(), f"{save_dir}/epoch_{epoch}.pth")
    if ddp:
        destroy_process_group()
