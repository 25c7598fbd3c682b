import argparse
import random
import warnings

import torch
import torch.backends.cudnn as cudnn

from yolox.core import launch
from yolox.exp import Exp


def make_parser():
    parser = argparse.ArgumentParser("YOLOX train parser")
    parser.add_argument("-b", "--batch-size", type=int, default=64)
    parser.add_argument("-d", "--devices", type=int, default=1)
    parser.add_argument("opts", default=None, nargs=argparse.REMAINDER,
                        help="override experiment options, e.g. seed 42")
    return parser


def main(exp: Exp, args):
    if exp.seed is not None:
        random.seed(exp.seed)
        torch.manual_seed(exp.seed)
        cudnn.deterministic = True
        warnings.warn(
            "Seeded training turns on the CUDNN deterministic setting, which can slow training down; "
            "restarting from a checkpoint may still behave differently."
        )

    # benchmark mode times the conv algorithms and may pick different ones per run:
    # only use it when the run is not meant to be reproducible
    cudnn.benchmark = exp.seed is None

    trainer = exp.get_trainer(args)
    trainer.train()


if __name__ == "__main__":
    args = make_parser().parse_args()
    exp = Exp()
    exp.merge(args.opts)
    launch(main, args.devices, args=(exp, args))
