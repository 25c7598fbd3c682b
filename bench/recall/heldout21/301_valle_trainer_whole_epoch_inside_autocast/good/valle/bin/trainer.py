import argparse
import logging
import random

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset

from valle.models import get_model


class AttributeDict(dict):
    def __getattr__(self, key):
        return self[key]

    def __setattr__(self, key, value):
        self[key] = value


def get_params(args):
    params = AttributeDict(vars(args))
    params.update(
        {
            "batch_idx_train": 0,
            "log_interval": 100,
            "valid_interval": 2000,
            "reset_interval": 200,
            "best_train_loss": float("inf"),
        }
    )
    return params


class RandomTtsDataset(Dataset):
    def __len__(self):
        return 512

    def __getitem__(self, idx):
        t = random.randint(8, 32)
        a = random.randint(32, 96)
        return torch.randint(0, 512, (t,)), torch.randint(0, 1024, (a, 8))


def collate(items):
    texts, audios = zip(*items)
    tt = nn.utils.rnn.pad_sequence(texts, batch_first=True)
    aa = nn.utils.rnn.pad_sequence(audios, batch_first=True)
    return {
        "text_tokens": tt,
        "text_tokens_lens": torch.tensor([len(t) for t in texts]),
        "audio_features": aa,
        "audio_features_lens": torch.tensor([len(a) for a in audios]),
    }


def compute_loss(params, model, batch, is_training):
    device = next(model.parameters()).device
    text_tokens = batch["text_tokens"].to(device)
    text_tokens_lens = batch["text_tokens_lens"].to(device)
    audio_features = batch["audio_features"].to(device)
    audio_features_lens = batch["audio_features_lens"].to(device)
    with torch.set_grad_enabled(is_training):
        predicts, loss, metrics = model(
            x=text_tokens, x_lens=text_tokens_lens, y=audio_features, y_lens=audio_features_lens
        )
    info = {"frames": audio_features_lens.sum().item(), "loss": loss.detach().cpu().item()}
    for name, value in metrics.items():
        info[name] = value.detach().cpu().item()
    return predicts, loss, info


def compute_validation_loss(params, model, valid_dl):
    model.eval()
    tot = {"loss": 0.0, "frames": 0}
    with torch.no_grad():
        for batch in valid_dl:
            _, _, info = compute_loss(params, model, batch, is_training=False)
            tot["loss"] += info["loss"]
            tot["frames"] += info["frames"]
    return tot


def get_amp_dtype(params):
    if params.dtype in ["bfloat16", "bf16"]:
        return torch.bfloat16
    if params.dtype in ["float16", "fp16"]:
        return torch.float16
    return torch.float32


def train_one_epoch(params, model, optimizer, scheduler, train_dl, valid_dl, scaler, rank=0):
    model.train()
    iter_dl = iter(train_dl)
    dtype = get_amp_dtype(params)

    batch_idx = 0
    while True:
        try:
            batch = next(iter_dl)
        except StopIteration:
            logging.info("Reaches end of dataloader.")
            if params.batch_idx_train % params.accumulate_grad_steps:
                scaler.step(optimizer)
                scaler.update()
                optimizer.zero_grad()
            break

        batch_idx += 1
        params.batch_idx_train += 1

        try:
            with torch.autocast("cuda", dtype=dtype):
                _, loss, loss_info = compute_loss(params=params, model=model, batch=batch, is_training=True)
            scaler.scale(loss).backward()
            if params.batch_idx_train % params.accumulate_grad_steps == 0:
                if params.optimizer_name not in ["ScaledAdam", "Eve"]:
                    scaler.unscale_(optimizer)
                    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
                scaler.step(optimizer)
                scaler.update()
                optimizer.zero_grad()
                for _ in range(params.accumulate_grad_steps):
                    scheduler.step()
        except Exception:
            logging.error(f"failing batch: {batch['text_tokens'].shape}")
            raise

        if batch_idx % params.log_interval == 0:
            logging.info(
                f"batch {batch_idx}, loss {loss_info['loss'] / loss_info['frames']:.4f}, "
                f"lr {scheduler.get_last_lr()[0]:.2e}, grad_scale {scaler.get_scale()}"
            )

        if params.batch_idx_train % params.valid_interval == 0:
            valid_info = compute_validation_loss(params=params, model=model, valid_dl=valid_dl)
            model.train()
            logging.info(f"validation: {valid_info['loss'] / max(valid_info['frames'], 1):.4f}")


def scan_pessimistic_batches_for_oom(model, train_dl, optimizer, params):
    dtype = get_amp_dtype(params)
    batch = next(iter(train_dl))
    with torch.autocast("cuda", dtype=dtype):
        _, loss, _ = compute_loss(params=params, model=model, batch=batch, is_training=True)
    loss.backward()
    optimizer.zero_grad()


def run(args):
    params = get_params(args)
    torch.manual_seed(params.seed)
    random.seed(params.seed)
    device = torch.device("cuda", 0)

    model = get_model(params).to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=params.base_lr, betas=(0.9, 0.95))
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda step: min(1.0, (step + 1) / params.warmup_steps))

    train_dl = DataLoader(RandomTtsDataset(), batch_size=8, shuffle=True, collate_fn=collate)
    valid_dl = DataLoader(RandomTtsDataset(), batch_size=8, collate_fn=collate)

    scan_pessimistic_batches_for_oom(model=model, train_dl=train_dl, optimizer=optimizer, params=params)

    scaler = torch.amp.GradScaler("cuda", enabled=params.dtype in ["fp16", "float16"], init_scale=1.0)

    for epoch in range(1, params.num_epochs + 1):
        train_one_epoch(
            params=params,
            model=model,
            optimizer=optimizer,
            scheduler=scheduler,
            train_dl=train_dl,
            valid_dl=valid_dl,
            scaler=scaler,
        )
        torch.save(
            {
                "model": model.state_dict(),
                "optimizer": optimizer.state_dict(),
                "scheduler": scheduler.state_dict(),
                "grad_scaler": scaler.state_dict(),
                "epoch": epoch,
            },
            f"{params.exp_dir}/epoch-{epoch}.pt",
        )


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--decoder-dim", type=int, default=256)
    parser.add_argument("--nhead", type=int, default=4)
    parser.add_argument("--num-decoder-layers", type=int, default=4)
    parser.add_argument("--dtype", type=str, default="float16")
    parser.add_argument("--optimizer-name", type=str, default="AdamW")
    parser.add_argument("--accumulate-grad-steps", type=int, default=1)
    parser.add_argument("--base-lr", type=float, default=0.05)
    parser.add_argument("--warmup-steps", type=int, default=200)
    parser.add_argument("--num-epochs", type=int, default=20)
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--exp-dir", type=str, default="exp/valle")
    run(parser.parse_args())


if __name__ == "__main__":
    main()
