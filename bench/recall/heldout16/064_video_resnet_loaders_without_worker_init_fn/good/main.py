import argparse
import random

import numpy as np
import torch
import torch.nn.functional as F
import torchvision

from datasets import RandomClipDataset
from utils import Logger, worker_init_fn


def parse_opts():
    p = argparse.ArgumentParser()
    p.add_argument("--manual_seed", type=int, default=1)
    p.add_argument("--batch_size", type=int, default=32)
    p.add_argument("--n_threads", type=int, default=4)
    p.add_argument("--n_epochs", type=int, default=10)
    p.add_argument("--no_train", action="store_true")
    p.add_argument("--no_val", action="store_true")
    p.add_argument("--test", action="store_true")
    return p.parse_args()


def main():
    opt = parse_opts()
    random.seed(opt.manual_seed)
    np.random.seed(opt.manual_seed)
    torch.manual_seed(opt.manual_seed)
    device = "cuda" if torch.cuda.is_available() else "cpu"

    model = torchvision.models.video.r3d_18(weights=None, num_classes=400).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, weight_decay=1e-3)

    if not opt.no_train:
        train_loader = torch.utils.data.DataLoader(
            RandomClipDataset(),
            batch_size=opt.batch_size,
            shuffle=True,
            num_workers=opt.n_threads,
            pin_memory=True,
            worker_init_fn=worker_init_fn)
        train_logger = Logger("train.log", ["epoch", "loss"])
    if not opt.no_val:
        val_loader = torch.utils.data.DataLoader(
            RandomClipDataset(n_videos=50),
            batch_size=opt.batch_size,
            shuffle=False,
            num_workers=opt.n_threads,
            pin_memory=True,
            worker_init_fn=worker_init_fn)

    for epoch in range(1, opt.n_epochs + 1):
        if not opt.no_train:
            model.train()
            for clips, targets in train_loader:
                loss = F.cross_entropy(model(clips.to(device)), targets.to(device))
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
            train_logger.log({"epoch": epoch, "loss": loss.item()})
        if not opt.no_val:
            model.eval()
            with torch.no_grad():
                for clips, targets in val_loader:
                    F.cross_entropy(model(clips.to(device)), targets.to(device))

    if opt.test:
        test_loader = torch.utils.data.DataLoader(
            RandomClipDataset(n_videos=50),
            batch_size=opt.batch_size,
            shuffle=False,
            num_workers=opt.n_threads,
            pin_memory=True,
            worker_init_fn=worker_init_fn)
        model.eval()
        with torch.no_grad():
            for clips, _ in test_loader:
                print(model(clips.to(device)).argmax(dim=1))


if __name__ == "__main__":
    main()
