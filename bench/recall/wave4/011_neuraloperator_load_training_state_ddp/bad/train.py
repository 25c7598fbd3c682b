import os
from pathlib import Path

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP


def save_training_state(save_dir: Path, save_name, model, optimizer, epoch):
    if dist.get_rank() == 0:
        torch.save(model.module.state_dict(), save_dir / f"{save_name}_state_dict.pt")
        torch.save(optimizer.state_dict(), save_dir / "optimizer.pt")
        torch.save({"epoch": epoch}, save_dir / "manifest.pt")


def load_training_state(save_dir: Path, save_name, model, optimizer):
    model.module.load_state_dict(torch.load(save_dir / f"{save_name}_state_dict.pt"))  # expect: TCK215
    optimizer.load_state_dict(torch.load(save_dir / "optimizer.pt"))  # expect: TCK215
    return model, optimizer


def main(build_model, loader, save_dir: Path, resume: bool):
    dist.init_process_group("nccl")
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    model = DDP(build_model().cuda(local_rank), device_ids=[local_rank])
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    if resume:
        model, optimizer = load_training_state(save_dir, "model", model, optimizer)
    for epoch in range(10):
        for x, y in loader:
            loss = torch.nn.functional.mse_loss(model(x.cuda(local_rank)), y.cuda(local_rank))
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        save_training_state(save_dir, "model", model, optimizer, epoch)
