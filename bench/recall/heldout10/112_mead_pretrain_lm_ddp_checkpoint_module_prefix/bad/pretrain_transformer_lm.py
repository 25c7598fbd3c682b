import argparse
import logging
import os

import torch
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler

from lm import TransformerLM

logger = logging.getLogger(__name__)


def checkpoint_for(model_base, epoch):
    return f"{model_base}-{epoch}.pth"


def train():
    parser = argparse.ArgumentParser()
    parser.add_argument("--basedir", default="transformer-lm")
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--restart_from", type=str)
    parser.add_argument("--distributed", action="store_true")
    parser.add_argument("--local_rank", type=int, default=-1)
    args = parser.parse_args()

    args.distributed = args.distributed or int(os.environ.get("WORLD_SIZE", 1)) > 1
    args.device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if args.distributed:
        if args.local_rank == -1:
            args.local_rank = int(os.environ["RANK"])
        torch.cuda.set_device(args.local_rank)
        args.device = torch.device("cuda", args.local_rank)
        torch.distributed.init_process_group(backend="nccl", init_method="env://")

    tokens = torch.randint(0, 8000, (2048, 65))
    dataset = TensorDataset(tokens[:, :-1], tokens[:, 1:])
    train_sampler = DistributedSampler(dataset) if args.distributed else None
    train_loader = DataLoader(dataset, batch_size=16, sampler=train_sampler, shuffle=train_sampler is None)

    model = TransformerLM().to(args.device)
    start_epoch = 0
    if args.restart_from:
        model.load_state_dict(torch.load(args.restart_from, map_location="cpu"))
        start_epoch = int(args.restart_from.split("-")[-1].split(".")[0])
    optimizer = torch.optim.Adam(model.parameters(), lr=4e-4)

    if args.distributed:
        model = DistributedDataParallel(model, device_ids=[args.local_rank], output_device=args.local_rank)

    os.makedirs(args.basedir, exist_ok=True)
    model_base = os.path.join(args.basedir, "checkpoint")
    for epoch in range(start_epoch, args.epochs):
        if args.distributed:
            train_sampler.set_epoch(epoch)
        model.train()
        for x, y in train_loader:
            x, y = x.to(args.device), y.to(args.device)
            logits = model(x)
            loss = F.cross_entropy(logits.flatten(0, 1), y.flatten())
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()

        if args.local_rank < 1:
            checkpoint_name = checkpoint_for(model_base, epoch + 1)
            logger.info("Creating checkpoint: %s", checkpoint_name)
            torch.save(model.state_dict(), checkpoint_name)  # expect: TCK209


if __name__ == "__main__":
    train()
