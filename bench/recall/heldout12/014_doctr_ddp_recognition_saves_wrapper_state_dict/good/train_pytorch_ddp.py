import argparse
import datetime
import random
import string

import numpy as np
import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.optim.lr_scheduler import CosineAnnealingLR
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler

from model import CRNN

VOCAB = string.ascii_letters + string.digits


class WordGenerator(Dataset):
    def __init__(self, num_samples):
        self.num_samples = num_samples

    def __len__(self):
        return self.num_samples

    def __getitem__(self, idx):
        word = "".join(random.choices(VOCAB, k=random.randint(3, 10)))
        return torch.rand(3, 32, 128), word

    @staticmethod
    def collate_fn(samples):
        images, targets = zip(*samples)
        return torch.stack(images), list(targets)


def fit_one_epoch(model, device, train_loader, optimizer, scheduler):
    model.train()
    for images, targets in train_loader:
        images = images.to(device)
        optimizer.zero_grad()
        train_loss = model(images, targets)["loss"]
        train_loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 5)
        optimizer.step()
        scheduler.step()


@torch.no_grad()
def evaluate(model, device, val_loader):
    model.eval()
    val_loss, exact, count = 0.0, 0, 0
    for images, targets in val_loader:
        out = model(images.to(device), targets, return_preds=True)
        val_loss += out["loss"].item()
        exact += sum(pred == gt for (pred, _), gt in zip(out["preds"], targets))
        count += len(targets)
    return val_loss / len(val_loader), exact / count


def main(rank, world_size, args):
    model = CRNN(VOCAB)

    if isinstance(args.resume, str):
        print(f"Resuming {args.resume}")
        checkpoint = torch.load(args.resume, map_location="cpu")
        model.load_state_dict(checkpoint)

    device = torch.device("cuda", rank)
    dist.init_process_group(args.backend, init_method="tcp://127.0.0.1:29500", rank=rank, world_size=world_size)
    model = model.to(device)
    model = DDP(model, device_ids=[device])

    train_set = WordGenerator(args.train_samples)
    sampler = DistributedSampler(train_set, num_replicas=world_size, rank=rank, shuffle=True, drop_last=True)
    train_loader = DataLoader(train_set, batch_size=args.batch_size, drop_last=True, sampler=sampler,
                              collate_fn=train_set.collate_fn)
    val_set = WordGenerator(1000)
    val_loader = DataLoader(val_set, batch_size=args.batch_size, collate_fn=val_set.collate_fn)

    optimizer = torch.optim.Adam([p for p in model.parameters() if p.requires_grad], args.lr, betas=(0.95, 0.99))
    scheduler = CosineAnnealingLR(optimizer, args.epochs * len(train_loader), eta_min=args.lr / 25e4)
    exp_name = f"crnn_{datetime.datetime.now().strftime('%Y%m%d-%H%M%S')}" if args.name is None else args.name

    min_loss = np.inf
    for epoch in range(args.epochs):
        sampler.set_epoch(epoch)
        fit_one_epoch(model, device, train_loader, optimizer, scheduler)
        if rank == 0:
            val_loss, exact_match = evaluate(model, device, val_loader)
            if val_loss < min_loss:
                print(f"Validation loss decreased {min_loss:.6} --> {val_loss:.6}: saving state...")
                torch.save(model.module.state_dict(), f"./{exp_name}.pt")
                min_loss = val_loss
            print(f"Epoch {epoch + 1}/{args.epochs} - Validation loss: {val_loss:.6} (Exact: {exact_match:.2%})")
    dist.destroy_process_group()


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--batch_size", type=int, default=64)
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--train_samples", type=int, default=100_000)
    parser.add_argument("--backend", default="nccl")
    parser.add_argument("--name", default=None)
    parser.add_argument("--resume", type=str, default=None)
    args = parser.parse_args()
    nprocs = torch.cuda.device_count()
    mp.spawn(main, args=(nprocs, args), nprocs=nprocs, join=True)
