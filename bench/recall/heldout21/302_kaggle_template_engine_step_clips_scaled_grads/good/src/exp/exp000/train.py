import argparse
import pathlib

import numpy as np
import torch
import torch.nn as nn
import torch.utils.data as torch_data
from torch.amp import autocast_mode, grad_scaler
from tqdm.auto import tqdm

from src import engine, utils

from . import models


class Config:
    seed = 42
    n_folds = 5
    device = torch.device("cuda")
    model_name = "SimpleNN"
    model_params = {"in_features": 64}
    train_batch_size = 64
    valid_batch_size = 256
    train_n_epochs = 10
    train_lr = 1e-3
    train_max_norm = 1.0
    train_use_amp = True
    output_dir = pathlib.Path("output/exp000")


def make_loaders(fold: int, cfg: Config):
    g = torch.Generator().manual_seed(fold)
    x = torch.randn(4096, 64, generator=g)
    y = x[:, :8].sum(1) + 0.1 * torch.randn(4096, generator=g)
    idx = torch.arange(len(x)) % cfg.n_folds
    train_ds = torch_data.TensorDataset(x[idx != fold], y[idx != fold])
    valid_ds = torch_data.TensorDataset(x[idx == fold], y[idx == fold])
    train_dl = torch_data.DataLoader(train_ds, batch_size=cfg.train_batch_size, shuffle=True, drop_last=True)
    valid_dl = torch_data.DataLoader(valid_ds, batch_size=cfg.valid_batch_size)
    return train_dl, valid_dl


def train_one_epoch(epoch, model, ema_model, optimizer, scheduler, criterion, loader, device,
                    use_amp=True, scaler: grad_scaler.GradScaler | None = None, max_norm=1000.0):
    lr = scheduler.get_last_lr()[0]
    model.train()
    loss_meter = engine.AverageMeter("train/loss")
    pbar = tqdm(loader, desc="Train", dynamic_ncols=True)
    for x, y in pbar:
        x, y = x.to(device, non_blocking=True), y.to(device, non_blocking=True)
        with autocast_mode.autocast(device_type=device.type, enabled=use_amp, dtype=torch.float16):
            y_pred = model(x)
            loss = criterion(y_pred, y)

        grad_norm = engine.step(
            model=model,
            optimizer=optimizer,
            loss=loss,
            max_norm=max_norm,
            scaler=scaler,
            ema_model=ema_model,
            scheduler=scheduler,
        )
        loss_meter.update(loss.detach().cpu().item())
        pbar.set_postfix_str(f"Loss:{loss_meter.avg:.4f},Epoch:{epoch},Norm:{grad_norm:.2f}")
    return loss_meter.avg, lr


@torch.inference_mode()
def valid_one_epoch(model, loader, criterion, device):
    model.eval()
    loss_meter = engine.AverageMeter("valid/loss")
    for x, y in loader:
        y_pred = model(x.to(device, non_blocking=True))
        loss_meter.update(criterion(y_pred.cpu(), y).item(), n=len(y))
    return loss_meter.avg


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--debug", action="store_true")
    args = parser.parse_args()
    cfg = Config()
    cfg.output_dir.mkdir(exist_ok=True, parents=True)

    scores = []
    for fold in range(cfg.n_folds):
        utils.seed_everything(cfg.seed + fold)
        model, ema_model = models.get_model(cfg.model_name, cfg.model_params)
        model, ema_model = model.to(cfg.device), ema_model.to(cfg.device)
        train_loader, valid_loader = make_loaders(fold, cfg)
        optimizer = torch.optim.AdamW(model.parameters(), lr=cfg.train_lr, weight_decay=1e-2)
        scheduler = torch.optim.lr_scheduler.OneCycleLR(
            optimizer, max_lr=cfg.train_lr, total_steps=cfg.train_n_epochs * len(train_loader)
        )
        scaler = grad_scaler.GradScaler("cuda", enabled=cfg.train_use_amp)
        criterion = nn.MSELoss()

        best = float("inf")
        for epoch in range(cfg.train_n_epochs):
            train_loss, lr = train_one_epoch(
                epoch=epoch,
                model=model,
                ema_model=ema_model,
                optimizer=optimizer,
                scheduler=scheduler,
                criterion=criterion,
                loader=train_loader,
                device=cfg.device,
                use_amp=cfg.train_use_amp,
                scaler=scaler,
                max_norm=cfg.train_max_norm,
            )
            valid_loss = valid_one_epoch(ema_model.module, valid_loader, criterion, cfg.device)
            best = min(best, valid_loss)
            print(f"fold {fold} epoch {epoch} lr {lr:.2e} train {train_loss:.4f} valid {valid_loss:.4f}")
        scores.append(best)
        torch.save(ema_model.module.state_dict(), cfg.output_dir / f"last_model_{fold}.pth")
        if args.debug:
            break
    print(f"CV: {np.mean(scores):.4f} +/- {np.std(scores):.4f}")


if __name__ == "__main__":
    main()
