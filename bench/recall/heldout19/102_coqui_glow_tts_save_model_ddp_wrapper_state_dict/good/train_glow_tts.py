import argparse
import os

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler

from tts_io import load_checkpoint, save_best_model, save_checkpoint


class GlowTTS(nn.Module):
    def __init__(self, n_mels=80, hidden=192):
        super().__init__()
        self.encoder = nn.GRU(n_mels, hidden, batch_first=True)
        self.proj = nn.Linear(hidden, n_mels)

    def forward(self, mels):
        out, _ = self.encoder(mels)
        return self.proj(out)


def train(model, optimizer, loader, global_step, epoch, save_step, out_path):
    model.train()
    for (mels,) in loader:
        mels = mels.cuda(non_blocking=True)
        optimizer.zero_grad()
        loss = nn.functional.l1_loss(model(mels), mels)
        loss.backward()
        optimizer.step()
        global_step += 1
        if global_step % save_step == 0:
            save_checkpoint(model, optimizer, global_step, epoch, out_path)
    return loss.item(), global_step


def main(args):
    num_gpus = torch.cuda.device_count()
    if num_gpus > 1:
        dist.init_process_group("nccl", rank=args.rank, world_size=num_gpus)
    torch.cuda.set_device(args.rank)

    model = GlowTTS()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    start_step = 0
    if args.restore_path:
        model, state = load_checkpoint(model, args.restore_path)
        optimizer.load_state_dict(state["optimizer"])
        start_step = state["step"]
    model.cuda()

    if num_gpus > 1:
        from apex.parallel import DistributedDataParallel as DDP
        model = DDP(model)

    dataset = TensorDataset(torch.randn(1024, 100, 80))
    sampler = DistributedSampler(dataset) if num_gpus > 1 else None
    loader = DataLoader(dataset, batch_size=32, sampler=sampler, shuffle=sampler is None)

    best_loss, global_step = float("inf"), start_step
    for epoch in range(args.epochs):
        if sampler is not None:
            sampler.set_epoch(epoch)
        target_loss, global_step = train(model, optimizer, loader, global_step, epoch, args.save_step, args.out_path)
        best_loss = save_best_model(target_loss, best_loss, model, optimizer, global_step, epoch, args.out_path)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--restore_path", default="")
    parser.add_argument("--out_path", default="runs/glow_tts")
    parser.add_argument("--rank", type=int, default=0)
    parser.add_argument("--epochs", type=int, default=100)
    parser.add_argument("--save_step", type=int, default=5000)
    args = parser.parse_args()
    os.makedirs(args.out_path, exist_ok=True)
    main(args)
