import argparse

import torch

_GLOBAL_ARGS = None


def set_args(argv=None):
    global _GLOBAL_ARGS
    parser = argparse.ArgumentParser("megatron")
    parser.add_argument("--seq-length", type=int, default=1024)
    parser.add_argument("--batch-size", type=int, default=8)
    parser.add_argument("--hidden-size", type=int, default=1024)
    parser.add_argument("--num-microbatches", type=int, default=4)
    parser.add_argument("--fp16", action="store_true")
    args = parser.parse_args(argv)
    args.params_dtype = torch.half if args.fp16 else torch.float
    _GLOBAL_ARGS = args
    return args


def get_args():
    assert _GLOBAL_ARGS is not None, "args are not initialized"
    return _GLOBAL_ARGS
