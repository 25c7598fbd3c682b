import torch
import torch.nn as nn
import torch.utils.data as torch_data
from timm.utils import ModelEmaV3
from torch.amp import autocast_mode, grad_scaler
from tqdm.auto import tqdm
from transformers import get_cosine_schedule_with_warmup

from src import engine
from src.exp.exp000 import config, dataset, models


def train_one_epoch(
    epoch: int,
    model: nn.Module,
    ema_model: ModelEmaV3,
    optimizer: torch.optim.Optimizer,
    scheduler: torch.optim.lr_scheduler.LRScheduler,
    criterion: nn.Module,
    loader: torch_data.DataLoader,
    device: torch.device,
    use_amp: bool = True,
    scaler: grad_scaler.GradScaler | None = None,
    max_norm: float = 1000.0,
    grad_accum_steps: int = 1,
) -> tuple[float, float]:
    lr = scheduler.get_last_lr()[0]
    model = model.train()
    pbar = tqdm(enumerate(loader), total=len(loader), desc="Train", dynamic_ncols=True)
    loss_meter = engine.AverageMeter("train/loss")
    for batch_idx, batch in pbar:
        _sample_id, x, y = batch
        x, y = x.to(device, non_blocking=True), y.to(device, non_blocking=True)
        with autocast_mode.autocast(device_type=device.type, enabled=use_amp, dtype=torch.float16):
            y_pred = model(x)
        loss = criterion(y_pred, y)

        grad_norm = engine.step(
            step=batch_idx,
            model=model,
            optimizer=optimizer,
            loss=loss,
            max_norm=max_norm,
            scaler=scaler,
            ema_model=ema_model,
            scheduler=scheduler,
            grad_accum_steps=grad_accum_steps,
        )
        loss_meter.update(loss.detach().cpu().item())
        pbar.set_postfix_str(f"Loss:{loss_meter.avg:.4f},Epoch:{epoch},Norm:{grad_norm:.2f}")
    return loss_meter.avg, lr


def valid_one_epoch(model: nn.Module, loader: torch_data.DataLoader, criterion: nn.Module,
                    device: torch.device) -> float:
    model = model.eval()
    loss_meter = engine.AverageMeter("valid/loss")
    for _sample_id, x, y in tqdm(loader, desc="Valid", dynamic_ncols=True):
        with torch.inference_mode():
            y_pred = model(x.to(device, non_blocking=True))
        loss = criterion(y_pred.detach().cpu(), y)
        loss_meter.update(loss.item())
    return loss_meter.avg


def main() -> None:
    cfg = config.Config()
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = models.get_model(cfg.model_name, pretrained=True).to(device)
    ema_model = ModelEmaV3(model, decay=cfg.ema_decay)
    train_loader, valid_loader = dataset.get_loaders(cfg)
    optimizer = torch.optim.AdamW(model.parameters(), lr=cfg.lr, weight_decay=cfg.weight_decay)
    num_steps = len(train_loader) * cfg.epochs // cfg.grad_accum_steps
    scheduler = get_cosine_schedule_with_warmup(optimizer, num_warmup_steps=int(0.1 * num_steps),
                                                num_training_steps=num_steps)
    scaler = grad_scaler.GradScaler(enabled=cfg.use_amp)
    criterion = nn.BCEWithLogitsLoss()
    best = float("inf")
    for epoch in range(cfg.epochs):
        train_loss, lr = train_one_epoch(epoch, model, ema_model, optimizer, scheduler, criterion, train_loader,
                                         device, use_amp=cfg.use_amp, scaler=scaler, max_norm=cfg.max_norm,
                                         grad_accum_steps=cfg.grad_accum_steps)
        valid_loss = valid_one_epoch(ema_model.module, valid_loader, criterion, device)
        print(f"epoch {epoch}: train {train_loss:.4f} valid {valid_loss:.4f} lr {lr:.2e}")
        if valid_loss < best:
            best = valid_loss
            torch.save(ema_model.module.state_dict(), cfg.output_dir / "best.pth")


if __name__ == "__main__":
    main()
