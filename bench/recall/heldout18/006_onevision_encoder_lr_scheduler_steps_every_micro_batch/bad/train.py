import argparse
import os

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel
from torch.nn.utils import clip_grad_norm_
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler

from heads import Backbone, PartialFC, PolynomialLRWarmup


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--total_steps", type=int, default=100000)
    parser.add_argument("--warmup_ratio", type=float, default=0.1)
    parser.add_argument("--backward_passes_per_step", type=int, default=4)
    parser.add_argument("--batch_size", type=int, default=64)
    args = parser.parse_args()

    dist.init_process_group("nccl")
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)

    backbone = Backbone().cuda()
    backbone_ddp = DistributedDataParallel(backbone, device_ids=[local_rank])
    pfc = PartialFC().cuda()
    opt = torch.optim.AdamW(list(backbone_ddp.parameters()) + list(pfc.parameters()), lr=1e-3, weight_decay=0.05)
    lr_scheduler = PolynomialLRWarmup(opt, int(args.total_steps * args.warmup_ratio), args.total_steps, 2)

    dataset = TensorDataset(torch.randn(4096, 3, 224, 224), torch.randint(0, 10000, (4096,)))
    sampler = DistributedSampler(dataset, shuffle=True)
    loader = DataLoader(dataset, batch_size=args.batch_size, sampler=sampler, drop_last=True)

    global_step = 0
    epoch = 0
    while global_step <= args.total_steps:
        sampler.set_epoch(epoch)
        for images, labels in loader:
            images, labels = images.cuda(non_blocking=True), labels.cuda(non_blocking=True)
            with torch.autocast(device_type="cuda", dtype=torch.bfloat16):
                embedding = backbone_ddp(images)
            loss = pfc(embedding.float(), labels)

            is_accumulation_step = (global_step + 1) % args.backward_passes_per_step != 0
            scaled_loss = loss / args.backward_passes_per_step

            if is_accumulation_step:
                with backbone_ddp.no_sync():
                    scaled_loss.backward()
            else:
                scaled_loss.backward()
                clip_grad_norm_(backbone_ddp.parameters(), max_norm=5, norm_type=2)
                clip_grad_norm_(pfc.parameters(), max_norm=5, norm_type=2)
                opt.step()
                opt.zero_grad(set_to_none=True)

            lr_scheduler.step()  # expect: TCK104

            if global_step % 100 == 0 and dist.get_rank() == 0:
                print(global_step, loss.item(), lr_scheduler.get_last_lr()[0])
            global_step += 1
            if global_step > args.total_steps:
                break
        epoch += 1

    if dist.get_rank() == 0:
        torch.save(backbone.state_dict(), "backbone.pt")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
