import argparse

import torch
import torch.nn.functional as F

from model import CNN_Text


def train(train_iter, model, args):
    if args.cuda:
        model.cuda()
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    model.train()
    for epoch in range(1, args.epochs + 1):
        for feature, target in train_iter:
            if args.cuda:
                feature, target = feature.cuda(), target.cuda()
            optimizer.zero_grad()
            logit = model(feature)
            loss = F.cross_entropy(logit, target)
            loss.backward()
            optimizer.step()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--lr", type=float, default=0.001)
    parser.add_argument("--epochs", type=int, default=256)
    parser.add_argument("--dropout", type=float, default=0.5)
    parser.add_argument("--kernel-num", dest="kernel_num", type=int, default=100)
    parser.add_argument("--kernel-sizes", dest="kernel_sizes", type=str, default="3,4,5")
    parser.add_argument("--cuda", action="store_true")
    args = parser.parse_args()
    args.kernel_sizes = [int(k) for k in args.kernel_sizes.split(",")]
    args.embed_num, args.embed_dim, args.class_num = 20000, 128, 2

    data = [(torch.randint(0, args.embed_num, (16, 40)), torch.randint(0, 2, (16,))) for _ in range(8)]
    model = CNN_Text(args)
    train(data, model, args)


if __name__ == "__main__":
    main()
