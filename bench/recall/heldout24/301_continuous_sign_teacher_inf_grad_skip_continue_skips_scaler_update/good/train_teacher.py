"""Train the sign-language teacher model with CTC loss and mixed precision."""
import argparse
import logging
import math
from pathlib import Path

import torch
import torch.nn as nn
import torch.optim as optim
from torch.utils.data import DataLoader
from tqdm import tqdm

from data.dataset import MediaPipeFeatureDataset, build_vocabulary, collate_fn
from models.i3d_teacher import create_i3d_teacher


def train_epoch(model, dataloader, criterion, optimizer, scaler, device, epoch, logger=None):
    """One epoch over the training set, skipping batches that go non-finite."""
    model.train()
    total_loss = 0.0
    num_batches = 0
    nan_count = 0

    progress_bar = tqdm(dataloader, desc=f"Epoch {epoch} - Training Teacher")
    for batch_idx, batch in enumerate(progress_bar):
        features = batch["features"].to(device)
        labels = batch["labels"].to(device)
        input_lengths = batch["input_lengths"].to(device)
        target_lengths = batch["target_lengths"].to(device)

        if torch.isnan(features).any() or torch.isinf(features).any():
            if logger:
                logger.warning(f"NaN/Inf in input features at batch {batch_idx}")
            nan_count += 1
            continue

        with torch.amp.autocast("cuda"):
            logits = model(features, input_lengths)
            log_probs = torch.nn.functional.log_softmax(logits, dim=-1)
            loss = criterion(log_probs.transpose(0, 1), labels, input_lengths, target_lengths)

        if torch.isnan(loss) or torch.isinf(loss):
            if logger:
                logger.warning(f"NaN/Inf loss at batch {batch_idx}, skipping")
            nan_count += 1
            if nan_count > 10:
                break
            continue

        optimizer.zero_grad()
        scaler.scale(loss).backward()
        scaler.unscale_(optimizer)
        grad_norm = torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=0.5)

        if math.isinf(grad_norm) or math.isnan(grad_norm):
            if logger:
                logger.warning(f"Infinite gradient norm at batch {batch_idx}, skipping optimizer step")
            scaler.update()
            optimizer.zero_grad()
            nan_count += 1
            continue

        scaler.step(optimizer)
        scaler.update()

        total_loss += loss.item()
        num_batches += 1
        progress_bar.set_postfix({"loss": f"{total_loss / num_batches:.4f}", "grad_norm": f"{grad_norm:.2f}"})

    if nan_count and logger:
        logger.warning(f"Epoch {epoch}: {nan_count} batches skipped")
    return {"train_loss": total_loss / max(num_batches, 1), "nan_count": nan_count}


def main(args):
    logging.basicConfig(level=logging.INFO)
    logger = logging.getLogger("teacher")
    device = torch.device("cuda")

    vocab = build_vocabulary(args.data_dir)
    train_set = MediaPipeFeatureDataset(args.data_dir, vocab, split="train")
    train_loader = DataLoader(train_set, batch_size=args.batch_size, shuffle=True, collate_fn=collate_fn)

    model = create_i3d_teacher(input_dim=train_set.feature_dim, vocab_size=len(vocab)).to(device)
    criterion = nn.CTCLoss(blank=vocab.blank_id, zero_infinity=True)
    optimizer = optim.AdamW(model.parameters(), lr=args.learning_rate, weight_decay=1e-4)
    scaler = torch.amp.GradScaler("cuda")

    output_dir = Path(args.output_dir)
    output_dir.mkdir(parents=True, exist_ok=True)
    for epoch in range(1, args.epochs + 1):
        stats = train_epoch(model, train_loader, criterion, optimizer, scaler, device, epoch, logger)
        logger.info(f"epoch {epoch}: {stats}")
        torch.save(model.state_dict(), output_dir / "teacher_last.pt")


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--data_dir", required=True)
    parser.add_argument("--output_dir", default="checkpoints/teacher")
    parser.add_argument("--batch_size", type=int, default=2)
    parser.add_argument("--epochs", type=int, default=50)
    parser.add_argument("--learning_rate", type=float, default=1e-5)
    main(parser.parse_args())
