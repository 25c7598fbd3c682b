"""Entry point: build the detector, its optimizer and the trainer."""
import argparse

import torch

from src.datasets.refdet_dataset import build_episodic_loader, build_triplet_loader
from src.models.yolov8n_refdet import YOLOv8nRefDet
from src.training.trainer import RefDetTrainer


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--data_root", default="datasets/train")
    parser.add_argument("--epochs", type=int, default=100)
    parser.add_argument("--lr", type=float, default=1e-4)
    parser.add_argument("--gradient_accumulation", type=int, default=4)
    parser.add_argument("--no_amp", action="store_true")
    parser.add_argument("--triplet_ratio", type=float, default=0.3)
    args = parser.parse_args()

    model = YOLOv8nRefDet()
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=0.05)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=args.epochs)
    trainer = RefDetTrainer(model, optimizer, scheduler, mixed_precision=not args.no_amp,
                            gradient_accumulation_steps=args.gradient_accumulation)
    trainer.train(build_episodic_loader(args.data_root), args.epochs,
                  triplet_loader=build_triplet_loader(args.data_root), triplet_ratio=args.triplet_ratio)


if __name__ == "__main__":
    main()
