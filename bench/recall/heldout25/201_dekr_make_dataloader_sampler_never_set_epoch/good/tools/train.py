"""Bottom-up pose estimation training; one process per GPU through mp.spawn."""
import argparse
import os
from types import SimpleNamespace

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch import nn
from torch.utils.tensorboard import SummaryWriter

from lib.core.trainer import do_train
from lib.dataset.build import make_dataloader
from lib.utils.utils import save_checkpoint


class PoseNet(nn.Module):
    def __init__(self, num_joints=17):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 32, 3, 2, 1), nn.ReLU(), nn.Conv2d(32, 64, 3, 2, 1), nn.ReLU())
        self.heatmap_head = nn.Conv2d(64, num_joints + 1, 1)
        self.offset_head = nn.Conv2d(64, num_joints * 2, 1)

    def forward(self, x):
        f = self.stem(x)
        return self.heatmap_head(f), self.offset_head(f)


class MultiLossFactory(nn.Module):
    def forward(self, pheatmap, poffset, heatmap, mask, offset, offset_w):
        heatmap_loss = ((pheatmap - heatmap) ** 2 * mask).mean()
        offset_loss = (torch.abs(poffset - offset) * offset_w).mean()
        return heatmap_loss, offset_loss


def default_cfg():
    return SimpleNamespace(
        GPUS=(0,),
        WORKERS=4,
        PIN_MEMORY=True,
        PRINT_FREQ=100,
        RANK=0,
        MULTIPROCESSING_DISTRIBUTED=True,
        DATASET=SimpleNamespace(INPUT_SIZE=512, OUTPUT_SIZE=128, NUM_JOINTS=17, NUM_IMAGES=64115, TRAIN="train2017", TEST="val2017"),
        TRAIN=SimpleNamespace(IMAGES_PER_GPU=10, LR=1e-3, BEGIN_EPOCH=0, END_EPOCH=140, LR_STEP=[90, 120], LR_FACTOR=0.1),
        TEST=SimpleNamespace(IMAGES_PER_GPU=1),
    )


def main_worker(gpu, ngpus_per_node, args, cfg, final_output_dir):
    args.gpu = gpu
    if args.distributed:
        args.rank = args.rank * ngpus_per_node + gpu
        dist.init_process_group(backend="nccl", init_method=args.dist_url, world_size=args.world_size, rank=args.rank)
    cfg.RANK = args.rank

    writer_dict = {"writer": SummaryWriter(log_dir=final_output_dir), "train_global_steps": 0}

    model = PoseNet(cfg.DATASET.NUM_JOINTS)
    torch.cuda.set_device(args.gpu)
    model.cuda(args.gpu)
    if args.distributed:
        model = torch.nn.parallel.DistributedDataParallel(model, device_ids=[args.gpu])

    loss_factory = MultiLossFactory().cuda()

    train_loader = make_dataloader(cfg, is_train=True, distributed=args.distributed)

    optimizer = torch.optim.Adam(model.parameters(), lr=cfg.TRAIN.LR)
    lr_scheduler = torch.optim.lr_scheduler.MultiStepLR(optimizer, cfg.TRAIN.LR_STEP, cfg.TRAIN.LR_FACTOR)

    best_perf = -1
    for epoch in range(cfg.TRAIN.BEGIN_EPOCH, cfg.TRAIN.END_EPOCH):
        if args.distributed:
            train_loader.sampler.set_epoch(epoch)

        # train one epoch
        do_train(cfg, model, train_loader, loss_factory, optimizer, epoch, writer_dict)
        lr_scheduler.step()

        perf_indicator = epoch
        best_model = perf_indicator >= best_perf
        best_perf = max(best_perf, perf_indicator)

        if not cfg.MULTIPROCESSING_DISTRIBUTED or (cfg.MULTIPROCESSING_DISTRIBUTED and args.rank == 0):
            bare = model.module if args.distributed else model
            save_checkpoint(
                {
                    "epoch": epoch + 1,
                    "state_dict": bare.state_dict(),
                    "best_state_dict": bare.state_dict(),
                    "perf": perf_indicator,
                    "optimizer": optimizer.state_dict(),
                },
                best_model,
                final_output_dir,
            )
    writer_dict["writer"].close()


def main():
    parser = argparse.ArgumentParser(description="Train keypoints network")
    parser.add_argument("--dist-url", default="tcp://127.0.0.1:23456")
    parser.add_argument("--world-size", type=int, default=1)
    parser.add_argument("--rank", type=int, default=0)
    parser.add_argument("--output-dir", default="output")
    args = parser.parse_args()

    cfg = default_cfg()
    os.makedirs(args.output_dir, exist_ok=True)
    ngpus_per_node = torch.cuda.device_count()
    args.world_size = ngpus_per_node * args.world_size
    args.distributed = args.world_size > 1
    mp.spawn(main_worker, nprocs=ngpus_per_node, args=(ngpus_per_node, args, cfg, args.output_dir))


if __name__ == "__main__":
    main()
