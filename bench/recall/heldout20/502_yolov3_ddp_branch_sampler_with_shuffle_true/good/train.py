import argparse

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.optim as optim
from torch.utils.data import DataLoader

from datasets import LoadImagesAndLabels


class TinyDetector(nn.Module):
    def __init__(self, nc=80):
        super().__init__()
        self.backbone = nn.Sequential(nn.Conv2d(3, 16, 3, 2, 1), nn.LeakyReLU(0.1), nn.Conv2d(16, 32, 3, 2, 1))
        self.head = nn.Conv2d(32, 3 * (5 + nc), 1)

    def forward(self, x):
        return self.head(self.backbone(x))


def compute_loss(pred, targets):
    return pred.sigmoid().mean() + 0.0 * targets.sum()


def train(opt, epochs=273, batch_size=16, img_size=416):
    device = torch.device("cuda:0" if torch.cuda.is_available() else "cpu")
    model = TinyDetector().to(device)
    optimizer = optim.SGD(model.parameters(), lr=1e-3, momentum=0.9, weight_decay=5e-4)

    # Dataset
    dataset = LoadImagesAndLabels(opt.train_path, img_size=img_size, augment=True)

    # Initialize distributed training
    if torch.cuda.device_count() > 1:
        dist.init_process_group(backend=opt.backend, init_method=opt.dist_url, world_size=opt.world_size, rank=opt.rank)
        model = torch.nn.parallel.DistributedDataParallel(model)

    # Dataloader
    dataloader = DataLoader(dataset,
                            batch_size=batch_size,
                            num_workers=opt.num_workers,
                            shuffle=True,
                            pin_memory=True,
                            collate_fn=dataset.collate_fn)

    for epoch in range(epochs):
        model.train()
        for i, (imgs, targets, _, _) in enumerate(dataloader):
            imgs, targets = imgs.to(device), targets.to(device)
            loss = compute_loss(model(imgs), targets)
            if torch.isnan(loss):
                print("WARNING: nan loss detected, ending training")
                return
            loss.backward()
            optimizer.step()
            optimizer.zero_grad()


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--train-path", type=str, default="data/trainvalno5k.txt")
    parser.add_argument("--num-workers", type=int, default=4)
    parser.add_argument("--dist-url", default="tcp://127.0.0.1:9999", type=str)
    parser.add_argument("--rank", default=0, type=int)
    parser.add_argument("--world-size", default=1, type=int)
    parser.add_argument("--backend", default="nccl", type=str)
    opt = parser.parse_args()
    train(opt)
