import argparse
import os
from types import SimpleNamespace

import torch
import torch.distributed as dist
from torch.utils.data import TensorDataset

from diffusion import Diffusion


def ns(**kw):
    return SimpleNamespace(**kw)


def parse_args_and_config():
    parser = argparse.ArgumentParser()
    parser.add_argument("--exp", default="exp")
    parser.add_argument("--doc", default="cifar10")
    parser.add_argument("--sample", action="store_true")
    parser.add_argument("--resume_training", action="store_true")
    parser.add_argument("--use_pretrained", action="store_true")
    args = parser.parse_args()
    args.log_path = os.path.join(args.exp, "logs", args.doc)
    args.image_folder = os.path.join(args.exp, "image_samples")
    os.makedirs(args.log_path, exist_ok=True)
    os.makedirs(args.image_folder, exist_ok=True)
    args.dataset = TensorDataset(torch.rand(512, 3, 32, 32), torch.zeros(512, dtype=torch.long))

    config = ns(
        data=ns(channels=3, image_size=32, num_workers=2),
        model=ns(ch=64, ema=True, ema_rate=0.9999),
        diffusion=ns(beta_start=0.0001, beta_end=0.02, num_diffusion_timesteps=1000),
        training=ns(batch_size=128, n_epochs=10000, snapshot_freq=5000),
        optim=ns(lr=2e-4, eps=1e-8, grad_clip=1.0),
        sampling=ns(batch_size=64, n_rounds=10, skip=20),
    )
    return args, config


def main():
    args, config = parse_args_and_config()
    if args.sample:
        Diffusion(args, config).sample()
        return
    # launched with: torchrun --nproc_per_node=NUM_GPUS main.py
    dist.init_process_group("nccl")
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    runner = Diffusion(args, config, device=torch.device("cuda", local_rank))
    runner.train()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
