import argparse
import os

import torch

from trainer import NetworkManager
from utils.Config import Config


def main():
    parser = argparse.ArgumentParser(description="Fine-tune a ResNet on CUB-200-2011")
    parser.add_argument("--batch_size", type=int, default=64)
    parser.add_argument("--base_lr", type=float, default=0.001)
    parser.add_argument("--net_choice", type=str, required=True)
    parser.add_argument("--model_choice", type=int, required=True)
    parser.add_argument("--epochs", type=int, default=95)
    parser.add_argument("--momentum", type=float, default=0.9)
    parser.add_argument("--weight_decay", type=float, default=1e-4)
    parser.add_argument("--gpu_id", type=int, default=0)
    parser.add_argument("--img_size", type=int, default=448)
    args = parser.parse_args()

    options = {
        "net_choice": args.net_choice,
        "model_choice": args.model_choice,
        "epochs": args.epochs,
        "batch_size": args.batch_size,
        "base_lr": args.base_lr,
        "weight_decay": args.weight_decay,
        "momentum": args.momentum,
        "img_size": args.img_size,
        "device": torch.device("cuda:" + str(args.gpu_id) if torch.cuda.is_available() else "cpu"),
    }
    path = {"data": Config.data_path, "model_save": Config.model_save_path}
    for p in path.values():
        assert os.path.isdir(p), p

    manager = NetworkManager(options, path)
    manager.train()


if __name__ == "__main__":
    main()
