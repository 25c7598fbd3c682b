import argparse
import random

import numpy as np
import torch
from torch import nn
from torch.utils.data import DataLoader, Dataset

from engine import train_one_epoch


class ToyDetector(nn.Module):
    def __init__(self, num_classes=91, num_queries=100, hidden=256):
        super().__init__()
        self.backbone = nn.Sequential(nn.Conv2d(3, hidden, 16, stride=16), nn.ReLU())
        self.query = nn.Embedding(num_queries, hidden)
        self.decoder = nn.TransformerDecoder(nn.TransformerDecoderLayer(hidden, 8, batch_first=True), num_layers=2)
        self.cls = nn.Linear(hidden, num_classes + 1)
        self.box = nn.Linear(hidden, 4)

    def forward(self, images, targets=None):
        mem = self.backbone(images).flatten(2).transpose(1, 2)
        q = self.query.weight.unsqueeze(0).expand(images.size(0), -1, -1)
        h = self.decoder(q, mem)
        return {"pred_logits": self.cls(h), "pred_boxes": self.box(h).sigmoid()}


class SetCriterion(nn.Module):
    def __init__(self, num_classes=91):
        super().__init__()
        self.num_classes = num_classes
        self.weight_dict = {"loss_ce": 1.0, "loss_bbox": 5.0}

    def forward(self, outputs, targets):
        logits = outputs["pred_logits"]
        tgt = torch.full(logits.shape[:2], self.num_classes, dtype=torch.long, device=logits.device)
        boxes = []
        for i, t in enumerate(targets):
            n = min(len(t["labels"]), logits.size(1))
            tgt[i, :n] = t["labels"][:n]
            boxes.append((outputs["pred_boxes"][i, :n] - t["boxes"][:n]).abs().sum())
        loss_ce = nn.functional.cross_entropy(logits.transpose(1, 2), tgt)
        return {"loss_ce": loss_ce, "loss_bbox": torch.stack(boxes).mean()}


class RandomBoxes(Dataset):
    def __len__(self):
        return 512

    def __getitem__(self, i):
        n = 5
        return torch.rand(3, 256, 256), {"labels": torch.randint(0, 91, (n,)), "boxes": torch.rand(n, 4)}


def collate(batch):
    images, targets = zip(*batch)
    return torch.stack(images), list(targets)


def main(args):
    random.seed(args.seed)
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)
    device = torch.device(args.device)
    model = ToyDetector().to(device)
    criterion = SetCriterion().to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=1e-4)
    loader = DataLoader(RandomBoxes(), batch_size=args.batch_size, shuffle=True, num_workers=4, collate_fn=collate)
    lr_scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=11)
    for epoch in range(args.epochs):
        train_one_epoch(model, criterion, loader, optimizer, device, epoch, args.clip_max_norm, lr_scheduler, args)
        if not args.onecyclelr:
            lr_scheduler.step()
        torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(), "epoch": epoch}, "checkpoint.pth")


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--device", default="cuda")
    parser.add_argument("--lr", type=float, default=1e-4)
    parser.add_argument("--batch_size", type=int, default=4)
    parser.add_argument("--epochs", type=int, default=12)
    parser.add_argument("--clip_max_norm", type=float, default=0.1)
    parser.add_argument("--amp", action="store_true")
    parser.add_argument("--use_dn", action="store_true")
    parser.add_argument("--onecyclelr", action="store_true")
    parser.add_argument("--seed", type=int, default=42)
    main(parser.parse_args())
