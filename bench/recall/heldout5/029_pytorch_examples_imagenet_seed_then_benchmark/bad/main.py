import argparse
import random
import warnings

import torch
import torch.backends.cudnn as cudnn
import torch.multiprocessing as mp

parser = argparse.ArgumentParser()
parser.add_argument("--seed", default=None, type=int)
parser.add_argument("--multiprocessing-distributed", action="store_true")


def main():
    args = parser.parse_args()
    if args.seed is not None:
        random.seed(args.seed)
        torch.manual_seed(args.seed)
        cudnn.deterministic = True
        warnings.warn("You have chosen to seed training. This will turn on the CUDNN deterministic setting.")
    ngpus_per_node = torch.cuda.device_count()
    if args.multiprocessing_distributed:
        mp.spawn(main_worker, nprocs=ngpus_per_node, args=(ngpus_per_node, args))
    else:
        main_worker(0, ngpus_per_node, args)


def main_worker(gpu, ngpus_per_node, args):
    torch.cuda.set_device(gpu)
    cudnn.benchmark = True  # expect: TCK501
    print(f"worker {gpu} of {ngpus_per_node} ready")


if __name__ == "__main__":
    main()
