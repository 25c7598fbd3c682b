import argparse
import os

import torch

from ACGAN import ACGAN


def str2bool(value):
    return value.lower() in ("yes", "true", "t", "y", "1")


def parse_args():
    parser = argparse.ArgumentParser(description="A collection of GANs trained on MNIST")
    parser.add_argument("--gan_type", type=str, default="ACGAN", choices=["ACGAN"])
    parser.add_argument("--dataset", type=str, default="mnist", choices=["mnist", "fashion-mnist"])
    parser.add_argument("--epoch", type=int, default=25)
    parser.add_argument("--batch_size", type=int, default=64)
    parser.add_argument("--save_dir", type=str, default="models")
    parser.add_argument("--result_dir", type=str, default="results")
    parser.add_argument("--log_dir", type=str, default="logs")
    parser.add_argument("--lrG", type=float, default=0.0002)
    parser.add_argument("--lrD", type=float, default=0.0002)
    parser.add_argument("--beta1", type=float, default=0.5)
    parser.add_argument("--beta2", type=float, default=0.999)
    parser.add_argument("--gpu_mode", type=str2bool, default=True)
    args = parser.parse_args()
    for folder in (args.save_dir, args.result_dir, args.log_dir):
        os.makedirs(folder, exist_ok=True)
    if args.gpu_mode and not torch.cuda.is_available():
        raise SystemExit("CUDA is not available, use --gpu_mode False")
    return args


def main():
    args = parse_args()
    gan = ACGAN(args)
    gan.train()
    print(" [*] Training finished!")
    gan.visualize_results(args.epoch, fix=False)
    print(" [*] Testing finished!")


if __name__ == "__main__":
    main()
