import argparse
import logging

import torch
from torch.amp import GradScaler, autocast

from vits import VITS


def train_one_epoch(params, model, optimizer_g, optimizer_d, scaler, train_dl):
    model.train()
    for batch_idx, (tokens, feats) in enumerate(train_dl):
        tokens, feats = tokens.to(params.device), feats.to(params.device)

        with autocast("cuda", enabled=params.use_fp16):
            loss_d = model(tokens, feats, return_generator=False)
        optimizer_d.zero_grad()
        scaler.scale(loss_d).backward()
        scaler.step(optimizer_d)

        with autocast("cuda", enabled=params.use_fp16):
            loss_g = model(tokens, feats, return_generator=True)
        optimizer_g.zero_grad()
        scaler.scale(loss_g).backward()
        scaler.step(optimizer_g)
        scaler.update()

        if batch_idx % 50 == 0:
            logging.info("batch %d loss_d %.3f loss_g %.3f", batch_idx, loss_d.item(), loss_g.item())


def compute_validation_loss(params, model, valid_dl):
    model.eval()
    total = 0.0
    with torch.no_grad():
        for tokens, feats in valid_dl:
            tokens, feats = tokens.to(params.device), feats.to(params.device)
            with autocast("cuda", enabled=params.use_fp16):
                total += model(tokens, feats, return_generator=True).item()
    model.train()
    return total / max(len(valid_dl), 1)


def run(params):
    params.device = torch.device("cuda", 0) if torch.cuda.is_available() else torch.device("cpu")
    model = VITS().to(params.device)
    optimizer_g = torch.optim.AdamW(model.generator.parameters(), lr=2e-4, betas=(0.8, 0.99))
    optimizer_d = torch.optim.AdamW(model.discriminator.parameters(), lr=2e-4, betas=(0.8, 0.99))
    scaler = GradScaler("cuda", enabled=params.use_fp16, init_scale=1.0)

    train_dl = [(torch.randint(0, 64, (8, 30)), torch.randn(8, 80)) for _ in range(20)]
    valid_dl = train_dl[:4]
    for epoch in range(1, params.num_epochs + 1):
        train_one_epoch(params, model, optimizer_g, optimizer_d, scaler, train_dl)
        logging.info("epoch %d valid loss %.4f", epoch, compute_validation_loss(params, model, valid_dl))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--num-epochs", dest="num_epochs", type=int, default=10)
    parser.add_argument("--use-fp16", dest="use_fp16", type=int, default=1)
    params = parser.parse_args()
    params.use_fp16 = bool(params.use_fp16)
    run(params)


if __name__ == "__main__":
    main()
