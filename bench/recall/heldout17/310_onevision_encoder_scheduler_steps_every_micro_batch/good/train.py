import argparse
import os

import torch
import torch.distributed as dist
from torch import nn
from torch.nn.utils import clip_grad_norm_
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler

from lr_scheduler import PolynomialLRWarmup


class VisionEncoder(nn.Module):
    def __init__(self, dim=512, num_classes=1000):
        super().__init__()
        self.patch = nn.Conv2d(3, dim, 16, 16)
        layer = nn.TransformerEncoderLayer(dim, 8, 4 * dim, batch_first=True)
        self.blocks = nn.TransformerEncoder(layer, 6)
        self.head = nn.Linear(dim, num_classes)

    def forward(self, x):
        tokens = self.patch(x).flatten(2).transpose(1, 2)
        return self.head(self.blocks(tokens).mean(1))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--total_steps", type=int, default=10000)
    parser.add_argument("--warmup_steps", type=int, default=500)
    parser.add_argument("--backward_passes_per_step", type=int, default=4)
    args = parser.parse_args()

    dist.init_process_group("nccl")
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)

    dataset = TensorDataset(torch.randn(4096, 3, 224, 224), torch.randint(0, 1000, (4096,)))
    sampler = DistributedSampler(dataset)
    loader = DataLoader(dataset, batch_size=32, sampler=sampler, num_workers=8, drop_last=True)

    backbone = VisionEncoder().cuda()
    backbone_ddp = nn.parallel.DistributedDataParallel(backbone, device_ids=[local_rank])
    opt = torch.optim.AdamW(backbone_ddp.parameters(), lr=args.lr, weight_decay=0.05)
    # the schedule is expressed in optimizer updates
    lr_scheduler = PolynomialLRWarmup(opt, args.warmup_steps, args.total_steps)
    criterion = nn.CrossEntropyLoss()

    global_step, epoch = 0, 0
    while global_step < args.total_steps * args.backward_passes_per_step:
        sampler.set_epoch(epoch)
        for images, labels in loader:
            images, labels = images.cuda(non_blocking=True), labels.cuda(non_blocking=True)
            loss = criterion(backbone_ddp(images), labels)
            is_accumulation_step = (global_step + 1) % args.backward_passes_per_step != 0
            scaled_loss = loss / args.backward_passes_per_step

            if is_accumulation_step:
                # intermediate micro-batch: no gradient all-reduce
                with backbone_ddp.no_sync():
                    scaled_loss.backward()
            else:
                scaled_loss.backward()
                clip_grad_norm_(backbone_ddp.parameters(), max_norm=5, norm_type=2)
                opt.step()
                opt.zero_grad()
                # learning-rate update: only after an optimizer step, not every micro-batch
                lr_scheduler.step()

            global_step += 1
            if dist.get_rank() == 0 and global_step % 100 == 0:
                print(f"step {global_step}: loss {loss.item():.4f} lr {lr_scheduler.get_last_lr()[0]:.2e}")
        epoch += 1

    dist.destroy_process_group()


if __name__ == "__main__":
    main()
