import argparse
import os

import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler

from data_utils import TextMelCollate, TextMelLoader
from model import TinyTacotron


def prepare_dataloaders(hparams):
    trainset = TextMelLoader(2000)
    valset = TextMelLoader(100)
    collate_fn = TextMelCollate()
    train_sampler = DistributedSampler(trainset) if hparams.distributed_run else None  # expect: TCK206
    shuffle = train_sampler is None
    train_loader = DataLoader(
        trainset,
        num_workers=1,
        shuffle=shuffle,
        sampler=train_sampler,
        batch_size=hparams.batch_size,
        pin_memory=False,
        drop_last=True,
        collate_fn=collate_fn,
    )
    return train_loader, valset, collate_fn


def train(hparams):
    if hparams.distributed_run:
        dist.init_process_group("nccl")
        torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
    model = TinyTacotron().cuda()
    if hparams.distributed_run:
        model = DistributedDataParallel(model, device_ids=[torch.cuda.current_device()])
    optimizer = torch.optim.Adam(model.parameters(), lr=hparams.learning_rate, weight_decay=1e-6)
    train_loader, valset, collate_fn = prepare_dataloaders(hparams)

    iteration = 0
    for epoch in range(hparams.epochs):
        print(f"Epoch: {epoch}")
        for text, mel in train_loader:
            text, mel = text.cuda(non_blocking=True), mel.cuda(non_blocking=True)
            model.zero_grad()
            mel_out = model(text, mel.size(2))
            loss = F.mse_loss(mel_out, mel)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), hparams.grad_clip_thresh)
            optimizer.step()
            if iteration % 100 == 0:
                print(f"iter {iteration}: loss {loss.item():.4f}")
            iteration += 1


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--batch_size", type=int, default=32)
    parser.add_argument("--learning_rate", type=float, default=1e-3)
    parser.add_argument("--grad_clip_thresh", type=float, default=1.0)
    parser.add_argument("--distributed_run", action="store_true")
    train(parser.parse_args())
