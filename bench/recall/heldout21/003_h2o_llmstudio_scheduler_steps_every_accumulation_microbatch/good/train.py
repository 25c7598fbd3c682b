import logging

import numpy as np
import torch
from torch.cuda.amp import GradScaler, autocast
from tqdm import tqdm

from llm_studio.src.utils.modeling_utils import get_optimizer, get_scheduler

logger = logging.getLogger(__name__)


def run_eval(cfg, model, val_dataloader):
    model.eval()
    losses = []
    with torch.no_grad():
        for data in val_dataloader:
            batch = cfg.dataset.dataset_class.batch_to_device(data, cfg.environment._device)
            losses.append(model(batch)["loss"].item())
    model.train()
    return float(np.mean(losses))


def run_train(cfg, model, optimizer, scheduler, epoch_steps, train_dataloader, val_dataloader):
    scaler = GradScaler() if cfg.environment.mixed_precision else None
    cfg.environment._curr_step = 0
    best_val_loss = np.inf

    for epoch in range(cfg.training.epochs):
        progress_bar = tqdm(total=len(train_dataloader), desc="train loss", disable=cfg.environment._local_rank != 0)
        losses = []
        model.train()
        evaluation_step = max(int(len(train_dataloader) * cfg.training.evaluation_epochs), 1)

        for itr, data in enumerate(train_dataloader):
            cfg.environment._curr_step += cfg.training.batch_size * cfg.environment._world_size
            batch = cfg.dataset.dataset_class.batch_to_device(data, cfg.environment._device)

            with autocast(enabled=cfg.environment.mixed_precision):
                output_dict = model(batch)

            loss = output_dict["loss"]
            if not np.isfinite(loss.item()) and (epoch > 0 or itr > 20):
                raise RuntimeError("NaN caught in loss during training.")
            losses.append(loss.item())

            # the loss is a per-batch mean; divide it so that the accumulated
            # gradient matches one batch of size batch_size * grad_accumulation
            if cfg.training.grad_accumulation != 1:
                loss = loss / cfg.training.grad_accumulation

            if cfg.environment.mixed_precision and not cfg.environment.use_deepspeed:
                scaler.scale(loss).backward()
                if itr % cfg.training.grad_accumulation == 0:
                    if cfg.training.gradient_clip > 0:
                        scaler.unscale_(optimizer)
                        torch.nn.utils.clip_grad_norm_(model.parameters(), cfg.training.gradient_clip)
                    scaler.step(optimizer)
                    scaler.update()
                    optimizer.zero_grad(set_to_none=True)
            else:
                if cfg.environment.use_deepspeed:
                    model.backward(loss)
                else:
                    loss.backward()
                if itr % cfg.training.grad_accumulation == 0:
                    if cfg.training.gradient_clip > 0:
                        torch.nn.utils.clip_grad_norm_(model.parameters(), cfg.training.gradient_clip)
                    optimizer.step()
                    optimizer.zero_grad(set_to_none=True)

            if cfg.environment._distributed:
                torch.cuda.synchronize(device=cfg.environment._local_rank)

            # advance the schedule once per optimizer update, not per micro-batch
            if scheduler is not None and itr % cfg.training.grad_accumulation == 0:
                scheduler.step()

            progress_bar.set_description(f"train loss: {np.mean(losses[-10:]):.2f}")
            progress_bar.update()

            if (itr + 1) % evaluation_step == 0:
                val_loss = run_eval(cfg, model, val_dataloader)
                if val_loss < best_val_loss:
                    best_val_loss = val_loss
                    logger.info(f"new best validation loss {val_loss:.4f}")

        progress_bar.close()
    return best_val_loss


def run(cfg, model, train_dataloader, val_dataloader):
    # the schedule counts optimizer updates: one per grad_accumulation batches
    epoch_steps = max(len(train_dataloader) // cfg.training.grad_accumulation, 1)
    optimizer = get_optimizer(model, cfg)
    scheduler = get_scheduler(cfg=cfg, optimizer=optimizer, epoch_steps=epoch_steps)
    return run_train(cfg, model, optimizer, scheduler, epoch_steps, train_dataloader, val_dataloader)
