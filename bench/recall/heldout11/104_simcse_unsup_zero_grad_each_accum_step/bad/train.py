import argparse

import torch
from torch.utils.data import DataLoader, TensorDataset
from tqdm import tqdm

from model import SimCSE


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--batch_size", type=int, default=64)
    parser.add_argument("--gradient_accumulation_steps", type=int, default=4)
    parser.add_argument("--lr", type=float, default=3e-5)
    args = parser.parse_args()

    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    ids = torch.randint(1, 30522, (4096, 32))
    data = TensorDataset(ids, torch.ones_like(ids), torch.zeros_like(ids))
    train_dataloader = DataLoader(data, batch_size=args.batch_size, shuffle=True)

    model = SimCSE().to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr)
    total_steps = len(train_dataloader) // args.gradient_accumulation_steps * args.epochs
    scheduler = torch.optim.lr_scheduler.LinearLR(optimizer, 1.0, 0.0, total_iters=max(total_steps, 1))

    model.train()
    for epoch in range(args.epochs):
        running_loss = 0.0
        for step, batch in enumerate(tqdm(train_dataloader, desc="Iteration")):
            input_ids, attention_mask, token_type_ids = (t.to(device) for t in batch)
            optimizer.zero_grad()  # expect: TCK111
            outputs = model(input_ids, attention_mask, token_type_ids)
            loss = outputs["loss"]
            if args.gradient_accumulation_steps > 1:
                loss = loss / args.gradient_accumulation_steps
            loss.backward()
            running_loss += loss.item()
            if (step + 1) % args.gradient_accumulation_steps == 0:
                optimizer.step()
                scheduler.step()
                model.zero_grad()
        print(f"epoch {epoch}: loss {running_loss / len(train_dataloader):.4f}")


if __name__ == "__main__":
    main()
