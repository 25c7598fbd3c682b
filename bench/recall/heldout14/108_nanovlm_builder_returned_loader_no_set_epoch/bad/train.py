import argparse
import os
import time

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, Dataset, DistributedSampler

from models.vlm import TinyVLM


class RandomVQADataset(Dataset):
    def __init__(self, n, seq_len=32, vocab_size=32000, img_size=64):
        self.images = torch.randn(n, 3, img_size, img_size)
        self.input_ids = torch.randint(0, vocab_size, (n, seq_len))

    def __len__(self):
        return len(self.images)

    def __getitem__(self, i):
        ids = self.input_ids[i]
        labels = ids.clone()
        labels[: ids.numel() // 2] = -100  # only the answer half is supervised
        return {"image": self.images[i], "input_ids": ids, "labels": labels}


def get_rank():
    return dist.get_rank() if dist.is_initialized() else 0


def get_world_size():
    return dist.get_world_size() if dist.is_initialized() else 1


def get_dataloaders(args):
    full = RandomVQADataset(args.num_samples)
    val_size = int(len(full) * args.val_ratio)
    train_dataset, val_dataset = torch.utils.data.random_split(full, [len(full) - val_size, val_size])

    train_sampler = DistributedSampler(train_dataset, rank=get_rank(), num_replicas=get_world_size())  # expect: TCK206
    train_loader = DataLoader(train_dataset, batch_size=args.batch_size, sampler=train_sampler,
                              num_workers=4, pin_memory=True, drop_last=True)

    val_sampler = DistributedSampler(val_dataset, rank=get_rank(), num_replicas=get_world_size(), shuffle=False)
    val_loader = DataLoader(val_dataset, batch_size=args.batch_size, sampler=val_sampler,
                            num_workers=4, pin_memory=True, drop_last=True)
    return train_loader, val_loader


@torch.no_grad()
def evaluate(model, loader, device):
    model.eval()
    total, n = 0.0, 0
    for batch in loader:
        _, loss = model(batch["input_ids"].to(device), batch["image"].to(device), targets=batch["labels"].to(device))
        total += loss.item()
        n += 1
    return total / max(n, 1)


def train(args):
    if "RANK" in os.environ:
        dist.init_process_group(backend="nccl")
        torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

    train_loader, val_loader = get_dataloaders(args)
    model = TinyVLM().to(device)
    if dist.is_initialized():
        model = DistributedDataParallel(model, device_ids=[device.index])
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr)

    for epoch in range(args.epochs):
        start = time.time()
        model.train()
        for batch in train_loader:
            images = batch["image"].to(device)
            input_ids = batch["input_ids"].to(device)
            labels = batch["labels"].to(device)
            with torch.autocast(device_type=device.type, dtype=torch.bfloat16):
                _, loss = model(input_ids, images, targets=labels)
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
        val_loss = evaluate(model, val_loader, device)
        if get_rank() == 0:
            print(f"epoch {epoch}: val loss {val_loss:.4f} ({time.time() - start:.1f}s)")

    if dist.is_initialized():
        dist.destroy_process_group()


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--num_samples", type=int, default=2048)
    parser.add_argument("--val_ratio", type=float, default=0.05)
    parser.add_argument("--batch_size", type=int, default=16)
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--lr", type=float, default=1e-4)
    train(parser.parse_args())
