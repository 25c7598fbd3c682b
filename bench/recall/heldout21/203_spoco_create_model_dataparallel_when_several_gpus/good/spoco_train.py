import argparse
import os
import random

import torch
import torch.distributed as dist
import torch.multiprocessing as mp

from trainer import SpocoTrainer

parser = argparse.ArgumentParser(description="SPOCO train")
parser.add_argument("--manual-seed", type=int, default=None)
parser.add_argument("--ds-path", type=str, required=True)
parser.add_argument("--batch-size", type=int, default=4)
parser.add_argument("--num-workers", type=int, default=8)
parser.add_argument("--model-in-channels", type=int, default=3)
parser.add_argument("--model-out-channels", type=int, default=16)
parser.add_argument("--model-feature-maps", type=int, nargs="+", default=[32, 64, 128])
parser.add_argument("--momentum", type=float, default=0.999)
parser.add_argument("--learning-rate", type=float, default=0.0002)
parser.add_argument("--weight-decay", type=float, default=0.00001)
parser.add_argument("--checkpoint-dir", type=str, required=True)
parser.add_argument("--log-after-iters", type=int, default=250)
parser.add_argument("--max-num-epochs", type=int, default=1000)
parser.add_argument("--nodes", default=1, type=int)
parser.add_argument("--node-rank", default=0, type=int)
parser.add_argument("--master-addr", default="localhost", type=str)
parser.add_argument("--master-port", default="12357", type=str)


def setup(rank, args):
    os.environ["MASTER_ADDR"] = args.master_addr
    os.environ["MASTER_PORT"] = args.master_port
    dist.init_process_group("nccl", rank=rank, world_size=torch.cuda.device_count() * args.nodes)


def train(gpu, args):
    rank = args.node_rank * torch.cuda.device_count() + gpu
    args.rank, args.gpu = rank, gpu
    setup(rank, args)
    torch.cuda.set_device(gpu)
    trainer = SpocoTrainer(args)
    trainer.train()
    dist.destroy_process_group()


def main():
    args = parser.parse_args()
    if not torch.cuda.is_available():
        raise RuntimeError("Only GPU training is supported")
    if args.manual_seed is not None:
        random.seed(args.manual_seed)
        torch.manual_seed(args.manual_seed)
    mp.spawn(train, args=(args,), nprocs=torch.cuda.device_count())


if __name__ == "__main__":
    main()
