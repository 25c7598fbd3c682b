import argparse
import random
from pathlib import Path

import numpy as np
import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch.nn import CrossEntropyLoss
from torch.optim import SGD, lr_scheduler
from torch.utils.data import DataLoader, Dataset

from model import generate_model, make_data_parallel
from training import train_epoch


class ClipDataset(Dataset):
    """16-frame 112x112 clips with action labels (stand-in for the Kinetics/UCF-101 loaders)."""

    def __init__(self, size, n_classes):
        self.size, self.n_classes = size, n_classes

    def __len__(self):
        return self.size

    def __getitem__(self, idx):
        g = torch.Generator().manual_seed(idx)
        return torch.randn(3, 16, 112, 112, generator=g), int(torch.randint(self.n_classes, (1,), generator=g))


def get_opt():
    parser = argparse.ArgumentParser()
    parser.add_argument("--result_path", type=Path, default=Path("results"))
    parser.add_argument("--resume_path", type=Path, default=None)
    parser.add_argument("--arch", default="resnet-18")
    parser.add_argument("--n_classes", type=int, default=400)
    parser.add_argument("--batch_size", type=int, default=128)
    parser.add_argument("--n_threads", type=int, default=8)
    parser.add_argument("--learning_rate", type=float, default=0.1)
    parser.add_argument("--n_epochs", type=int, default=200)
    parser.add_argument("--checkpoint", type=int, default=10, help="Trained model is saved at every this epochs.")
    parser.add_argument("--distributed", action="store_true")
    parser.add_argument("--dist_url", default="tcp://127.0.0.1:23456")
    parser.add_argument("--world_size", type=int, default=1)
    parser.add_argument("--dist_rank", type=int, default=0)
    parser.add_argument("--manual_seed", type=int, default=1)
    return parser.parse_args()


def get_train_utils(opt, parameters):
    train_data = ClipDataset(240000, opt.n_classes)
    if opt.distributed:
        train_sampler = torch.utils.data.distributed.DistributedSampler(train_data)
    else:
        train_sampler = None
    train_loader = DataLoader(train_data, batch_size=opt.batch_size, shuffle=(train_sampler is None),
                              num_workers=opt.n_threads, pin_memory=True, sampler=train_sampler)
    optimizer = SGD(parameters, lr=opt.learning_rate, momentum=0.9, weight_decay=1e-3, nesterov=True)
    scheduler = lr_scheduler.MultiStepLR(optimizer, [50, 100, 150])
    return train_loader, train_sampler, optimizer, scheduler


def resume(resume_path, arch, model, optimizer, scheduler):
    checkpoint = torch.load(resume_path, map_location="cpu", weights_only=False)
    assert arch == checkpoint["arch"]
    if hasattr(model, "module"):
        model.module.load_state_dict(checkpoint["state_dict"])
    else:
        model.load_state_dict(checkpoint["state_dict"])
    optimizer.load_state_dict(checkpoint["optimizer"])
    scheduler.load_state_dict(checkpoint["scheduler"])
    return checkpoint["epoch"] + 1


def save_checkpoint(save_file_path, epoch, arch, model, optimizer, scheduler):
    if hasattr(model, "module"):
        model_state_dict = model.module.state_dict()
    else:
        model_state_dict = model.state_dict()
    save_states = {
        "epoch": epoch,
        "arch": arch,
        "state_dict": model_state_dict,
        "optimizer": optimizer.state_dict(),
        "scheduler": scheduler.state_dict(),
    }
    torch.save(save_states, save_file_path)


def main_worker(index, opt):
    if index >= 0 and opt.device.type == "cuda":
        opt.device = torch.device(f"cuda:{index}")

    if opt.distributed:
        opt.dist_rank = opt.dist_rank * opt.ngpus_per_node + index
        dist.init_process_group(backend="nccl", init_method=opt.dist_url,
                                world_size=opt.world_size, rank=opt.dist_rank)
        opt.batch_size = int(opt.batch_size / opt.ngpus_per_node)
        opt.n_threads = int((opt.n_threads + opt.ngpus_per_node - 1) / opt.ngpus_per_node)

    model = generate_model(opt)
    model = make_data_parallel(model, opt.distributed, opt.device)
    criterion = CrossEntropyLoss().to(opt.device)
    train_loader, train_sampler, optimizer, scheduler = get_train_utils(opt, model.parameters())

    begin_epoch = 1
    if opt.resume_path is not None:
        begin_epoch = resume(opt.resume_path, opt.arch, model, optimizer, scheduler)

    for i in range(begin_epoch, opt.n_epochs + 1):
        if opt.distributed:
            train_sampler.set_epoch(i)
        current_lr = optimizer.param_groups[0]["lr"]
        train_epoch(i, train_loader, model, criterion, optimizer, opt.device, current_lr)

        if i % opt.checkpoint == 0 and (not opt.distributed or opt.dist_rank == 0):
            save_file_path = opt.result_path / "save_{}.pth".format(i)
            save_checkpoint(save_file_path, i, opt.arch, model, optimizer, scheduler)

        scheduler.step()


if __name__ == "__main__":
    opt = get_opt()
    opt.result_path.mkdir(parents=True, exist_ok=True)
    opt.device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    random.seed(opt.manual_seed)
    np.random.seed(opt.manual_seed)
    torch.manual_seed(opt.manual_seed)

    opt.ngpus_per_node = torch.cuda.device_count()
    if opt.distributed:
        opt.world_size = opt.ngpus_per_node * opt.world_size
        mp.spawn(main_worker, nprocs=opt.ngpus_per_node, args=(opt,))
    else:
        main_worker(-1, opt)
