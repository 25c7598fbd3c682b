import argparse
import time

import torch

from model_factory import TorchVisionModel


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("model", default="resnet50")
    parser.add_argument("--test", choices=["train", "eval"], default="eval")
    parser.add_argument("--iters", type=int, default=20)
    args = parser.parse_args()

    device = "cuda" if torch.cuda.is_available() else "cpu"
    bench = TorchVisionModel(args.model, args.test, device)
    step = bench.train if args.test == "train" else bench.eval

    for _ in range(3):
        step()
    if device == "cuda":
        torch.cuda.synchronize()
    start = time.perf_counter()
    for _ in range(args.iters):
        step()
    if device == "cuda":
        torch.cuda.synchronize()
    print(f"{args.model} {args.test}: {(time.perf_counter() - start) / args.iters * 1000:.2f} ms/iter")


if __name__ == "__main__":
    main()
