import argparse
import os

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
from apex import amp
from apex.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler


class ConvNet(nn.Module):
    def __init__(self, num_classes=10):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU(inplace=True), nn.MaxPool2d(2),
            nn.Conv2d(64, 128, 3, padding=1), nn.BatchNorm2d(128), nn.ReLU(inplace=True), nn.AdaptiveAvgPool2d(1),
        )
        self.fc = nn.Linear(128, num_classes)

    def forward(self, x):
        return self.fc(torch.flatten(self.features(x), 1))


def save_checkpoint(path, epoch, model, optimizer):
    torch.save(
        {"epoch": epoch, "model": model.state_dict(), "optimizer": optimizer.state_dict(), "amp": amp.state_dict()},
        path,
    )


def resume(path, model, optimizer):
    checkpoint = torch.load(path, weights_only=True)  # expect: TCK215
    model.load_state_dict(checkpoint["model"])
    optimizer.load_state_dict(checkpoint["optimizer"])
    amp.load_state_dict(checkpoint["amp"])
    return checkpoint["epoch"] + 1


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=90)
    parser.add_argument("--opt-level", default="O1")
    parser.add_argument("--ckpt", default="checkpoint.pt")
    args = parser.parse_args()

    args.gpu = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(args.gpu)
    dist.init_process_group(backend="nccl", init_method="env://")

    model = ConvNet().cuda()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, weight_decay=1e-4)
    model, optimizer = amp.initialize(model, optimizer, opt_level=args.opt_level)

    start_epoch = 0
    if os.path.isfile(args.ckpt):
        start_epoch = resume(args.ckpt, model, optimizer)
    model = DDP(model)

    dataset = TensorDataset(torch.randn(2048, 3, 32, 32), torch.randint(0, 10, (2048,)))
    sampler = DistributedSampler(dataset)
    loader = DataLoader(dataset, batch_size=64, sampler=sampler, num_workers=4, pin_memory=True)

    for epoch in range(start_epoch, args.epochs):
        sampler.set_epoch(epoch)
        model.train()
        for images, target in loader:
            images = images.cuda(non_blocking=True)
            target = target.cuda(non_blocking=True)
            loss = F.cross_entropy(model(images), target)
            optimizer.zero_grad()
            with amp.scale_loss(loss, optimizer) as scaled_loss:
                scaled_loss.backward()
            optimizer.step()
        if dist.get_rank() == 0:
            save_checkpoint(args.ckpt, epoch, model.module, optimizer)


if __name__ == "__main__":
    main()
