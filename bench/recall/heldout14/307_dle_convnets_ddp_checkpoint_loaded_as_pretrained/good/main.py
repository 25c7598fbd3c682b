import argparse
import os

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler

from resnet import build_model


def main(args):
    distributed = int(os.environ.get("WORLD_SIZE", "1")) > 1
    if distributed:
        dist.init_process_group(backend="nccl")
        torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))

    model = build_model(args.num_classes)
    if args.pretrained_weights:
        checkpoint = torch.load(args.pretrained_weights, map_location="cpu", weights_only=True)
        state_dict = {
            (k[len("module."):] if k.startswith("module.") else k): v for k, v in checkpoint["state_dict"].items()
        }
        model.load_state_dict(state_dict)
    model = model.cuda()
    if distributed:
        model = DDP(model, device_ids=[torch.cuda.current_device()])

    dataset = TensorDataset(torch.randn(256, 3, 64, 64), torch.randint(0, args.num_classes, (256,)))
    sampler = DistributedSampler(dataset) if distributed else None
    loader = DataLoader(dataset, batch_size=32, sampler=sampler, shuffle=sampler is None)
    criterion = nn.CrossEntropyLoss().cuda()
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9, weight_decay=1e-4)

    best_loss = float("inf")
    for epoch in range(args.epochs):
        if sampler is not None:
            sampler.set_epoch(epoch)
        model.train()
        total = 0.0
        for images, target in loader:
            images, target = images.cuda(non_blocking=True), target.cuda(non_blocking=True)
            loss = criterion(model(images), target)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            total += loss.item()
        is_best = total < best_loss
        best_loss = min(best_loss, total)
        if not distributed or dist.get_rank() == 0:
            path = os.path.join(args.checkpoint_dir, "model_best.pth.tar" if is_best else "checkpoint.pth.tar")
            torch.save({"epoch": epoch + 1, "state_dict": model.state_dict(), "optimizer": optimizer.state_dict()}, path)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=5)
    parser.add_argument("--lr", type=float, default=0.1)
    parser.add_argument("--num-classes", type=int, default=10)
    parser.add_argument("--pretrained-weights", default="")
    parser.add_argument("--checkpoint-dir", default=".")
    main(parser.parse_args())
