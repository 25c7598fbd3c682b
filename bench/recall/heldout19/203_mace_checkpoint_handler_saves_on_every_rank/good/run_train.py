import argparse
import os

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler

from checkpoint import CheckpointHandler
from train import train


class EnergyModel(torch.nn.Module):
    def __init__(self, num_atoms=16, hidden=128):
        super().__init__()
        self.net = torch.nn.Sequential(
            torch.nn.Linear(num_atoms * 3, hidden), torch.nn.SiLU(),
            torch.nn.Linear(hidden, hidden), torch.nn.SiLU(),
            torch.nn.Linear(hidden, 1),
        )

    def forward(self, positions):
        return self.net(positions.flatten(1))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", default="train.pt")
    parser.add_argument("--checkpoints_dir", default="checkpoints")
    parser.add_argument("--name", default="mace_run")
    parser.add_argument("--max_num_epochs", type=int, default=200)
    parser.add_argument("--distributed", action="store_true")
    args = parser.parse_args()

    if args.distributed:
        dist.init_process_group(backend="nccl")
        rank = dist.get_rank()
        local_rank = int(os.environ["LOCAL_RANK"])
        torch.cuda.set_device(local_rank)
        device = f"cuda:{local_rank}"
    else:
        rank, local_rank, device = 0, 0, "cuda"

    positions, energies = torch.load(args.data, weights_only=True)
    n_train = int(0.9 * len(energies))
    train_set = TensorDataset(positions[:n_train], energies[:n_train])
    valid_set = TensorDataset(positions[n_train:], energies[n_train:])
    train_sampler = DistributedSampler(train_set, shuffle=True, seed=123) if args.distributed else None
    valid_sampler = DistributedSampler(valid_set, shuffle=False) if args.distributed else None
    train_loader = DataLoader(train_set, batch_size=32, sampler=train_sampler,
                              shuffle=train_sampler is None, drop_last=True)
    valid_loader = DataLoader(valid_set, batch_size=64, sampler=valid_sampler)

    model = EnergyModel(num_atoms=positions.shape[1]).to(device)
    distributed_model = DDP(model, device_ids=[local_rank]) if args.distributed else None
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2, amsgrad=True)
    lr_scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, factor=0.8, patience=50)
    checkpoint_handler = CheckpointHandler(args.checkpoints_dir, tag=args.name)

    train(model, distributed_model, torch.nn.functional.mse_loss, train_loader, valid_loader,
          train_sampler, optimizer, lr_scheduler, checkpoint_handler, args.max_num_epochs,
          patience=2048, max_grad_norm=10.0, device=device, rank=rank,
          distributed=args.distributed)
    if args.distributed:
        dist.destroy_process_group()


if __name__ == "__main__":
    main()
