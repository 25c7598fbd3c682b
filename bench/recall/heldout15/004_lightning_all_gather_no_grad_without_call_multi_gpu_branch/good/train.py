import os

import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler

from dist_utils import all_gather_if_available


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 2))

    def forward(self, x):
        return self.net(x)


def validation_epoch(model, loader, device):
    model.eval()
    losses = []
    with torch.no_grad():
        for x, y in loader:
            x, y = x.to(device), y.to(device)
            losses.append(F.cross_entropy(model(x), y))
    local_mean = torch.stack(losses).mean()
    gathered = all_gather_if_available(local_mean)
    return gathered.mean().item()


def main():
    distributed = "LOCAL_RANK" in os.environ
    if distributed:
        dist.init_process_group("nccl")
        local_rank = int(os.environ["LOCAL_RANK"])
        torch.cuda.set_device(local_rank)
        device = torch.device("cuda", local_rank)
    else:
        device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

    data = TensorDataset(torch.randn(2048, 32), torch.randint(0, 2, (2048,)))
    train_set, val_set = torch.utils.data.random_split(data, [1792, 256])
    train_sampler = DistributedSampler(train_set) if distributed else None
    train_loader = DataLoader(train_set, batch_size=64, sampler=train_sampler, shuffle=train_sampler is None)
    val_loader = DataLoader(val_set, batch_size=64)

    model = Classifier().to(device)
    if distributed:
        model = DDP(model, device_ids=[device.index])
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)

    for epoch in range(5):
        if train_sampler is not None:
            train_sampler.set_epoch(epoch)
        model.train()
        for x, y in train_loader:
            x, y = x.to(device), y.to(device)
            optimizer.zero_grad()
            F.cross_entropy(model(x), y).backward()
            optimizer.step()
        val_loss = validation_epoch(model, val_loader, device)
        if not distributed or dist.get_rank() == 0:
            print(f"epoch {epoch}: val loss {val_loss:.4f}")

    if distributed:
        dist.destroy_process_group()


if __name__ == "__main__":
    main()
