import os

import torch
import torch.multiprocessing as mp
import torch.nn.functional as F
from torch.distributed import destroy_process_group, init_process_group
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler

from toy_data import make_splits


class TwoLayerNet(torch.nn.Module):
    def __init__(self, n_in, n_out):
        super().__init__()
        self.net = torch.nn.Sequential(
            torch.nn.Linear(n_in, 32),
            torch.nn.ReLU(),
            torch.nn.Linear(32, 16),
            torch.nn.ReLU(),
            torch.nn.Linear(16, n_out),
        )

    def forward(self, x):
        return self.net(x)


def setup(rank, world_size):
    os.environ["MASTER_ADDR"] = "localhost"
    os.environ["MASTER_PORT"] = "12355"
    init_process_group(backend="nccl", rank=rank, world_size=world_size)
    torch.cuda.set_device(rank)


def build_loaders():
    train_ds, test_ds = make_splits()
    train_loader = DataLoader(
        train_ds,
        batch_size=2,
        shuffle=False,
        pin_memory=True,
        drop_last=True,
        sampler=DistributedSampler(train_ds),
    )
    test_loader = DataLoader(test_ds, batch_size=2, shuffle=False)
    return train_loader, test_loader


@torch.no_grad()
def accuracy(model, loader, device):
    model.eval()
    correct, seen = 0, 0
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        pred = model(x).argmax(dim=1)
        correct += (pred == y).sum().item()
        seen += y.numel()
    return correct / max(seen, 1)


def run(rank, world_size, epochs):
    setup(rank, world_size)
    train_loader, test_loader = build_loaders()
    model = TwoLayerNet(2, 2).to(rank)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
    model = DDP(model, device_ids=[rank])

    for epoch in range(epochs):
        train_loader.sampler.set_epoch(epoch)
        model.train()
        for features, labels in train_loader:
            features, labels = features.to(rank), labels.to(rank)
            loss = F.cross_entropy(model(features), labels)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            print(f"[GPU{rank}] epoch {epoch + 1}/{epochs} loss {loss.item():.3f}")

    print(f"[GPU{rank}] test accuracy", accuracy(model, test_loader, rank))
    destroy_process_group()


if __name__ == "__main__":
    world_size = torch.cuda.device_count()
    mp.spawn(run, args=(world_size, 3), nprocs=world_size)
