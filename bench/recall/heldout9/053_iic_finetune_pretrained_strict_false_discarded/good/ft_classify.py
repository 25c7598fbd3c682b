import argparse

import torch
import torch.nn as nn
from torch import optim

from models.c3d import C3D
from models.r21d import R2Plus1DNet
from models.r3d import R3DNet


def parse_args():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", default="r3d")
    parser.add_argument("--mode", default="train")
    parser.add_argument("--ckpt", default="")
    parser.add_argument("--lr", type=float, default=0.001)
    return parser.parse_args()


if __name__ == "__main__":
    args = parse_args()
    class_num = 101
    if args.model == "c3d":
        model = C3D(with_classifier=True, num_classes=class_num).cuda()
    elif args.model == "r3d":
        model = R3DNet(layer_sizes=(1, 1, 1, 1), with_classifier=True, num_classes=class_num).cuda()
    else:
        model = R2Plus1DNet(layer_sizes=(1, 1, 1, 1), with_classifier=True, num_classes=class_num).cuda()

    pretrained_weights = torch.load(args.ckpt)
    if args.mode == "train":
        result = model.load_state_dict(pretrained_weights["model"], strict=False)
        if result.missing_keys:
            raise RuntimeError(f"pre-trained checkpoint left layers uninitialised: {result.missing_keys}")
    else:
        model.load_state_dict(pretrained_weights, strict=True)

    criterion = nn.CrossEntropyLoss()
    optimizer = optim.SGD(model.parameters(), lr=args.lr, momentum=0.9)
