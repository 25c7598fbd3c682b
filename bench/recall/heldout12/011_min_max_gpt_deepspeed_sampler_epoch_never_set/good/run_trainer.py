import argparse

import deepspeed
import torch
import torch.distributed as dist
from deepspeed import get_accelerator
from torch.utils.data import DataLoader, Dataset, RandomSampler, SequentialSampler
from torch.utils.data.distributed import DistributedSampler

from model import GPTModel


class TokenDataset(Dataset):
    def __init__(self, n, seq_len=128, vocab=50257):
        self.data = torch.randint(0, vocab, (n, seq_len))

    def __len__(self):
        return len(self.data)

    def __getitem__(self, idx):
        return {"input_ids": self.data[idx]}


def train(ds_engine, train_loader, device):
    ds_engine.train()
    total_loss = 0.0
    for batch in train_loader:
        input_ids = batch["input_ids"].to(device)
        loss = ds_engine(input_ids)["loss"]
        ds_engine.backward(loss)
        ds_engine.step()
        total_loss += loss.detach()
    return (total_loss / len(train_loader)).item()


def validate(model, val_loader, device):
    model.eval()
    total = 0.0
    with torch.no_grad():
        for batch in val_loader:
            total += model(batch["input_ids"].to(device))["loss"].float()
    model.train()
    return (total / len(val_loader)).item()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--local_rank", type=int, default=-1)
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--num_train_epochs", type=int, default=3)
    parser.add_argument("--per_device_train_batch_size", type=int, default=32)
    parser.add_argument("--learning_rate", type=float, default=1e-3)
    args = parser.parse_args()

    if args.local_rank == -1:
        device = torch.device(get_accelerator().device_name())
    else:
        get_accelerator().set_device(args.local_rank)
        device = torch.device(get_accelerator().device_name(), args.local_rank)
        deepspeed.init_distributed()

    train_dataset = TokenDataset(20_000)
    val_dataset = TokenDataset(1_000)
    train_sampler = RandomSampler(train_dataset) if args.local_rank == -1 else DistributedSampler(train_dataset, seed=args.seed)
    eval_sampler = SequentialSampler(val_dataset) if args.local_rank == -1 else DistributedSampler(val_dataset, seed=args.seed)
    train_loader = DataLoader(train_dataset, sampler=train_sampler, batch_size=args.per_device_train_batch_size)
    val_loader = DataLoader(val_dataset, sampler=eval_sampler, batch_size=args.per_device_train_batch_size * 2)

    model = GPTModel(vocab_size=50257)
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.learning_rate, betas=(0.9, 0.95))
    ds_config = {
        "train_micro_batch_size_per_gpu": args.per_device_train_batch_size,
        "zero_optimization": {"stage": 2},
        "bf16": {"enabled": True},
        "gradient_clipping": 1.0,
    }
    model_engine, optimizer, _, _ = deepspeed.initialize(model=model, optimizer=optimizer, config=ds_config)

    for epoch in range(args.num_train_epochs):
        if args.local_rank != -1:
            train_sampler.set_epoch(epoch)
        avg_train_loss = train(model_engine, train_loader, model_engine.device)
        eval_loss = validate(model_engine, val_loader, device)
        if args.local_rank in (-1, 0):
            print(f"epoch {epoch}: train {avg_train_loss:.4f} eval {eval_loss:.4f}")


if __name__ == "__main__":
    main()
