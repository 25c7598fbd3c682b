import argparse
import math
import os

import numpy as np
import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.optim as optim
import torch.optim.lr_scheduler as lr_scheduler
from tqdm import tqdm

from models.yolo import Model
from utils.datasets import create_dataloader

wdir = "weights" + os.sep
last = wdir + "last.pt"

hyp = {"lr0": 0.01, "momentum": 0.937, "weight_decay": 5e-4}


def compute_loss(pred, targets, model):
    # placeholder for the GIoU/objectness/class loss of utils.utils
    lbox = pred.float().pow(2).mean()
    return lbox * max(len(targets), 1), torch.stack([lbox, lbox, lbox, lbox]).detach()


def setup(opt, rank):
    dist.init_process_group(backend="nccl", init_method="tcp://127.0.0.1:9999", world_size=opt.world_size, rank=rank)
    torch.cuda.set_device(rank)


def train(rank, hyp, opt, device):
    if opt.world_size > 1:
        setup(opt, rank)

    epochs = opt.epochs
    batch_size = opt.batch_size
    model = Model(opt.cfg).to(rank)

    gs = int(max(model.stride))
    imgsz, imgsz_test = opt.img_size
    optimizer = optim.SGD(model.parameters(), lr=hyp["lr0"], momentum=hyp["momentum"], nesterov=True)
    lf = lambda x: (((1 + math.cos(x * math.pi / epochs)) / 2) ** 1.0) * 0.9 + 0.1
    scheduler = lr_scheduler.LambdaLR(optimizer, lr_lambda=lf)
    start_epoch = 0

    # Trainloader, sharded over the processes
    dataloader, dataset = create_dataloader(
        opt.train_path, imgsz, batch_size, gs, opt, hyp=hyp, augment=True, rect=opt.rect, rank=rank, split=True
    )
    # Testloader
    testloader = create_dataloader(opt.test_path, imgsz_test, batch_size, gs, opt, hyp=hyp, rect=True, rank=rank)[0]

    if device.type != "cpu" and torch.cuda.device_count() > 1 and torch.distributed.is_available():
        model = torch.nn.parallel.DistributedDataParallel(model, device_ids=[rank], output_device=rank)

    nb = len(dataloader)
    dist.barrier()
    for epoch in range(start_epoch, epochs):
        model.train()
        # a new shuffle of the shards every epoch
        dataloader.sampler.set_epoch(epoch)
        mloss = torch.zeros(4, device=rank)
        pbar = tqdm(enumerate(dataloader), total=nb, disable=rank != 0)
        for i, (imgs, targets, paths, _) in pbar:
            imgs = imgs.to(rank).float() / 255.0
            pred = model(imgs)
            loss, loss_items = compute_loss(pred, targets.to(rank), model)
            loss.backward()
            optimizer.step()
            optimizer.zero_grad()
            mloss = (mloss * i + loss_items) / (i + 1)
            if rank == 0:
                pbar.set_description(("%10s" + "%10.4g" * 4) % (f"{epoch}/{epochs - 1}", *mloss))
        scheduler.step()

        if rank == 0:
            ckpt = {
                "epoch": epoch,
                "model": model.module.state_dict() if hasattr(model, "module") else model.state_dict(),
                "optimizer": optimizer.state_dict(),
            }
            torch.save(ckpt, last)

    if opt.world_size > 1:
        dist.destroy_process_group()
    return testloader


def run(fn, hyp, opt, device):
    mp.spawn(fn, args=(hyp, opt, device), nprocs=opt.world_size, join=True)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=300)
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--cfg", type=str, default="models/yolov5s.yaml")
    parser.add_argument("--img-size", nargs="+", type=int, default=[640, 640])
    parser.add_argument("--rect", action="store_true")
    parser.add_argument("--train-path", type=str, default="../coco/images/train2017")
    parser.add_argument("--test-path", type=str, default="../coco/images/val2017")
    opt = parser.parse_args()
    opt.world_size = torch.cuda.device_count()
    os.makedirs(wdir, exist_ok=True)
    run(train, hyp, opt, torch.device("cuda:0"))
