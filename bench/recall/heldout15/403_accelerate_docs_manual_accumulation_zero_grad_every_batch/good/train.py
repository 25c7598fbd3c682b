import argparse

import torch
import torch.nn as nn
from accelerate import Accelerator
from torch.utils.data import DataLoader
from transformers import get_linear_schedule_with_warmup

from data import build_dataset, collate_batch
from model import TextClassifier


def train_one_epoch(accelerator, model, loader, optimizer, scheduler, loss_function, gradient_accumulation_steps):
    model.train()
    for index, batch in enumerate(loader):
        tokens, offsets, targets = batch
        outputs = model(tokens, offsets)
        loss = loss_function(outputs, targets)
        loss = loss / gradient_accumulation_steps
        accelerator.backward(loss)
        if (index + 1) % gradient_accumulation_steps == 0:
            optimizer.step()
            scheduler.step()
            optimizer.zero_grad()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", required=True)
    parser.add_argument("--epochs", type=int, default=5)
    parser.add_argument("--batch_size", type=int, default=16)
    parser.add_argument("--gradient_accumulation_steps", type=int, default=2)
    args = parser.parse_args()

    accelerator = Accelerator()
    dataset, vocab_size, num_classes = build_dataset(args.data)
    loader = DataLoader(dataset, batch_size=args.batch_size, shuffle=True, collate_fn=collate_batch)
    model = TextClassifier(vocab_size, num_classes)
    optimizer = torch.optim.AdamW(model.parameters(), lr=5e-4)
    total_steps = args.epochs * len(loader) // args.gradient_accumulation_steps
    scheduler = get_linear_schedule_with_warmup(optimizer, num_warmup_steps=100, num_training_steps=total_steps)
    model, optimizer, loader, scheduler = accelerator.prepare(model, optimizer, loader, scheduler)
    loss_function = nn.CrossEntropyLoss()

    for epoch in range(args.epochs):
        train_one_epoch(accelerator, model, loader, optimizer, scheduler, loss_function,
                        args.gradient_accumulation_steps)
        accelerator.print(f"epoch {epoch} done, lr {scheduler.get_last_lr()[0]:.2e}")

    accelerator.wait_for_everyone()
    if accelerator.is_main_process:
        torch.save(accelerator.unwrap_model(model).state_dict(), "classifier.pt")


if __name__ == "__main__":
    main()
