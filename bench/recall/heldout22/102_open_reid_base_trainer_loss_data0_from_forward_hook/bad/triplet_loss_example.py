import argparse

import torch
import torchvision
from torch import nn

from loss import TripletLoss
from trainers import Trainer


class Embedder(nn.Module):
    def __init__(self, num_features=128):
        super().__init__()
        backbone = torchvision.models.resnet50(weights=None)
        backbone.fc = nn.Linear(backbone.fc.in_features, num_features)
        self.backbone = backbone

    def forward(self, x):
        return self.backbone(x)


def main(args):
    model = nn.DataParallel(Embedder(args.features)).cuda()
    criterion = TripletLoss(margin=args.margin).cuda()
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr, weight_decay=args.weight_decay)
    train_loader = torch.load(args.loader_cache, weights_only=False)

    trainer = Trainer(model, criterion)
    for epoch in range(args.epochs):
        lr = args.lr if epoch <= 100 else args.lr * (0.001 ** ((epoch - 100) / 50.0))
        for g in optimizer.param_groups:
            g["lr"] = lr
        trainer.train(epoch, train_loader, optimizer)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="Triplet loss classification")
    parser.add_argument("--features", type=int, default=128)
    parser.add_argument("--margin", type=float, default=0.5)
    parser.add_argument("--lr", type=float, default=0.0002)
    parser.add_argument("--weight-decay", type=float, default=5e-4)
    parser.add_argument("--epochs", type=int, default=150)
    parser.add_argument("--loader-cache", type=str, required=True)
    main(parser.parse_args())
