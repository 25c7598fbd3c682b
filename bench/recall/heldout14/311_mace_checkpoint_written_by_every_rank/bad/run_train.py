import argparse
import logging
import os

import numpy as np
import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler

from checkpoint import CheckpointHandler, CheckpointState


class EnergyModel(torch.nn.Module):
    def __init__(self, n_features=64, hidden=128):
        super().__init__()
        self.net = torch.nn.Sequential(
            torch.nn.Linear(n_features, hidden), torch.nn.SiLU(), torch.nn.Linear(hidden, hidden), torch.nn.SiLU(), torch.nn.Linear(hidden, 1)
        )

    def forward(self, x):
        return self.net(x).squeeze(-1)


def evaluate(model, loader, device):
    model.eval()
    total, n = 0.0, 0
    with torch.no_grad():
        for x, y in loader:
            x, y = x.to(device), y.to(device)
            total += torch.nn.functional.mse_loss(model(x), y, reduction="sum").item()
            n += len(y)
    model.train()
    return total / n


def train(model, ddp_model, train_loader, valid_loader, train_sampler, optimizer, lr_scheduler, checkpoint_handler, max_num_epochs, patience, rank, device):
    lowest_loss = np.inf
    patience_counter = 0
    for epoch in range(max_num_epochs):
        train_sampler.set_epoch(epoch)
        for x, y in train_loader:
            x, y = x.to(device), y.to(device)
            optimizer.zero_grad()
            loss = torch.nn.functional.mse_loss(ddp_model(x), y)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(ddp_model.parameters(), 10.0)
            optimizer.step()
        dist.barrier()

        valid_loss = evaluate(model, valid_loader, device)
        lr_scheduler.step(valid_loss)
        logging.info(f"epoch {epoch}: valid loss {valid_loss:.5f}")
        if valid_loss >= lowest_loss:
            patience_counter += 1
            if patience_counter >= patience:
                logging.info(f"Stopping optimization after {patience_counter} epochs without improvement")
                break
        else:
            lowest_loss = valid_loss
            patience_counter = 0
            checkpoint_handler.save(state=CheckpointState(model, optimizer, lr_scheduler), epochs=epoch)
        dist.barrier()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--checkpoints_dir", default="checkpoints")
    parser.add_argument("--name", default="mace_run")
    parser.add_argument("--max_num_epochs", type=int, default=50)
    parser.add_argument("--patience", type=int, default=10)
    args = parser.parse_args()

    dist.init_process_group(backend="nccl")
    rank = dist.get_rank()
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    device = torch.device("cuda", local_rank)
    logging.basicConfig(level=logging.INFO if rank == 0 else logging.WARNING)

    train_set = TensorDataset(torch.randn(4096, 64), torch.randn(4096))
    valid_set = TensorDataset(torch.randn(512, 64), torch.randn(512))
    train_sampler = DistributedSampler(train_set, shuffle=True)
    train_loader = DataLoader(train_set, batch_size=32, sampler=train_sampler)
    valid_loader = DataLoader(valid_set, batch_size=64)

    model = EnergyModel().to(device)
    ddp_model = DDP(model, device_ids=[local_rank])
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    lr_scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, factor=0.8, patience=5)
    checkpoint_handler = CheckpointHandler(args.checkpoints_dir, args.name)

    train(model, ddp_model, train_loader, valid_loader, train_sampler, optimizer, lr_scheduler, checkpoint_handler, args.max_num_epochs, args.patience, rank, device)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
