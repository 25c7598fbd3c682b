import argparse
import random

import numpy as np
import torch
import torch.nn as nn
import torch.utils.data

from ctdet_dataset import CTDetDataset


def build_model():
    return nn.Sequential(
        nn.Conv2d(3, 32, 3, stride=2, padding=1), nn.ReLU(),
        nn.Conv2d(32, 32, 3, stride=2, padding=1), nn.ReLU(),
        nn.Conv2d(32, 1, 1),
    )


def run_epoch(model, loader, optimizer, device, train):
    model.train(train)
    total = 0.0
    for images, heatmaps in loader:
        images, heatmaps = images.to(device), heatmaps.to(device)
        with torch.set_grad_enabled(train):
            loss = nn.functional.binary_cross_entropy_with_logits(model(images), heatmaps)
        if train:
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        total += loss.item()
    return total / len(loader)


def seed_worker(worker_id):
    worker_seed = (torch.initial_seed() + worker_id) % 2**32
    np.random.seed(worker_seed)
    random.seed(worker_seed)


def main(opt):
    torch.manual_seed(opt.seed)
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    loader_gen = torch.Generator()
    loader_gen.manual_seed(opt.seed)
    model = build_model().to(device)
    optimizer = torch.optim.Adam(model.parameters(), opt.lr)

    val_loader = torch.utils.data.DataLoader(
        CTDetDataset(opt, "val"),
        batch_size=1,
        shuffle=False,
        num_workers=1,
        pin_memory=True,
        worker_init_fn=seed_worker,
        generator=loader_gen,
    )
    train_loader = torch.utils.data.DataLoader(
        CTDetDataset(opt, "train"),
        batch_size=opt.batch_size,
        shuffle=True,
        num_workers=opt.num_workers,
        pin_memory=True,
        drop_last=True,
        worker_init_fn=seed_worker,
        generator=loader_gen,
    )

    for epoch in range(1, opt.num_epochs + 1):
        train_loss = run_epoch(model, train_loader, optimizer, device, train=True)
        val_loss = run_epoch(model, val_loader, optimizer, device, train=False)
        print(f"epoch {epoch}: train {train_loss:.4f} val {val_loss:.4f}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--seed", type=int, default=317)
    parser.add_argument("--lr", type=float, default=1.25e-4)
    parser.add_argument("--batch_size", type=int, default=16)
    parser.add_argument("--num_workers", type=int, default=4)
    parser.add_argument("--num_epochs", type=int, default=3)
    parser.add_argument("--shift", type=float, default=4.0)
    parser.add_argument("--flip", type=float, default=0.5)
    main(parser.parse_args())
