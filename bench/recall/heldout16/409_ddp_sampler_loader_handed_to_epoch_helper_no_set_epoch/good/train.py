import os

import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler

from engine import evaluate, train_one_epoch


def main():
    dist.init_process_group("nccl")
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    device = torch.device("cuda", local_rank)

    train_set = TensorDataset(torch.randn(4096, 3, 32, 32), torch.randint(0, 10, (4096,)))
    val_set = TensorDataset(torch.randn(512, 3, 32, 32), torch.randint(0, 10, (512,)))
    train_sampler = DistributedSampler(train_set, shuffle=True)
    train_loader = DataLoader(train_set, batch_size=64, sampler=train_sampler, num_workers=4)
    val_loader = DataLoader(val_set, batch_size=256)

    net = nn.Sequential(nn.Conv2d(3, 32, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1),
                        nn.Flatten(), nn.Linear(32, 10)).to(device)
    model = DDP(net, device_ids=[local_rank])
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    criterion = nn.CrossEntropyLoss()

    for epoch in range(30):
        train_sampler.set_epoch(epoch)
        loss = train_one_epoch(model, train_loader, optimizer, criterion, device)
        if dist.get_rank() == 0:
            acc = evaluate(net, val_loader, device)
            print(f"epoch {epoch}: loss {loss:.4f} acc {acc:.3f}")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
