import argparse

import torch
from torch.utils.data import DataLoader, Dataset

from detr_lite import DETRLite, SetCriterion
from engine import train_one_epoch


class ToyDetection(Dataset):
    def __len__(self):
        return 64

    def __getitem__(self, idx):
        g = torch.Generator().manual_seed(idx)
        n = int(torch.randint(1, 4, (1,), generator=g))
        target = {
            "labels": torch.randint(0, 5, (n,), generator=g),
            "boxes": torch.rand(n, 4, generator=g),
        }
        return torch.rand(3, 64, 64, generator=g), target


def collate(batch):
    images, targets = zip(*batch)
    return torch.stack(images), list(targets)


def main(args):
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = DETRLite().to(device)
    criterion = SetCriterion().to(device)
    param_dicts = [
        {"params": [p for n, p in model.named_parameters() if "backbone" not in n]},
        {"params": [p for n, p in model.named_parameters() if "backbone" in n], "lr": args.lr_backbone},
    ]
    optimizer = torch.optim.AdamW(param_dicts, lr=args.lr, weight_decay=1e-4)
    loader = DataLoader(ToyDetection(), batch_size=8, shuffle=True, collate_fn=collate, num_workers=2)
    for epoch in range(args.epochs):
        stats = train_one_epoch(model, criterion, loader, optimizer, device, epoch, args.clip_max_norm, args=args)
        print("epoch", epoch, "avg loss", stats)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--lr", type=float, default=1e-4)
    parser.add_argument("--lr_backbone", type=float, default=1e-5)
    parser.add_argument("--clip_max_norm", type=float, default=0.1)
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--amp", action="store_true")
    main(parser.parse_args())
