"""Finetune a pretrained interatomic-potential model on an ASE database."""
import argparse
import logging
import os
from typing import Optional, Union

import torch
import tqdm
from torch.utils.data import BatchSampler, DataLoader, RandomSampler

from orb_models import utils
from orb_models.dataset.ase_dataset import AseSqliteDataset
from orb_models.forcefield import base, pretrained

logging.basicConfig(level=logging.INFO, format="%(asctime)s - %(levelname)s - %(message)s")


def finetune(model, optimizer, dataloader, lr_scheduler=None, num_steps: Optional[int] = None,
             clip_grad: Optional[float] = None, log_freq: float = 10, device=torch.device("cpu"), epoch: int = 0):
    """Train for a fixed number of steps."""
    if clip_grad is not None:
        hook_handles = utils.gradient_clipping(model, clip_grad)

    metrics = utils.ScalarMetricTracker()
    model.train()

    num_training_batches: Union[int, float]
    if num_steps is not None:
        num_training_batches = num_steps
    else:
        try:
            num_training_batches = len(dataloader)
        except TypeError:
            raise ValueError("Dataloader has no length, you must specify num_steps.")
    batch_iterator = iter(tqdm.tqdm(iter(dataloader), total=num_training_batches))

    i = 0
    while True:
        if num_steps and i == num_steps:
            break
        optimizer.zero_grad(set_to_none=True)
        if i % log_freq == 0:
            metrics.reset()

        batch = next(batch_iterator).to(device)
        step_metrics = {
            "batch_size": len(batch.n_node),
            "batch_num_edges": batch.n_edge.sum(),
            "batch_num_nodes": batch.n_node.sum(),
        }

        # the energy/force/stress losses are computed in full precision
        with torch.autocast("cuda", enabled=False):
            batch_outputs = model.loss(batch)
            loss = batch_outputs.loss
            metrics.update(batch_outputs.log)
        if torch.isnan(loss):
            raise ValueError("nan loss encountered")
        loss.backward()
        optimizer.step()
        if lr_scheduler is not None:
            lr_scheduler.step()

        metrics.update(step_metrics)
        if i != 0 and i % log_freq == 0:
            logging.info(f"epoch {epoch} step {i}: {metrics.get_metrics()}")
        i += 1

    if clip_grad is not None:
        for handle in hook_handles:
            handle.remove()
    return metrics.get_metrics()


def build_train_loader(dataset_path, num_workers, batch_size, augmentation=True, target_config=None) -> DataLoader:
    dataset = AseSqliteDataset(dataset_path, target_config=target_config, augmentation=augmentation)
    logging.info(f"Total train dataset size: {len(dataset)} samples")
    batch_sampler = BatchSampler(RandomSampler(dataset), batch_size=batch_size, drop_last=False)
    return DataLoader(dataset, num_workers=num_workers, collate_fn=base.batch_graphs, batch_sampler=batch_sampler)


def run(args):
    device = utils.init_device(device_id=args.device_id)
    utils.seed_everything(args.random_seed)
    torch.set_float32_matmul_precision("high")

    model = pretrained.orb_v2(device=device)
    for param in model.parameters():
        param.requires_grad = True
    model.to(device=device)
    total_steps = args.max_epochs * args.num_steps
    optimizer, lr_scheduler = utils.get_optim(args.lr, total_steps, model)

    train_loader = build_train_loader(
        args.data_path, args.num_workers, args.batch_size,
        target_config={"graph": ["energy", "stress"], "node": ["forces"]},
    )
    for epoch in range(args.max_epochs):
        finetune(model=model, optimizer=optimizer, dataloader=train_loader, lr_scheduler=lr_scheduler,
                 clip_grad=args.gradient_clip_val, device=device, num_steps=args.num_steps, epoch=epoch)
        if (epoch % args.save_every_x_epochs == 0) or (epoch == args.max_epochs - 1):
            os.makedirs(args.checkpoint_path, exist_ok=True)
            torch.save(model.state_dict(), os.path.join(args.checkpoint_path, f"checkpoint_epoch{epoch}.ckpt"))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="Finetune orb model")
    parser.add_argument("--random_seed", default=1234, type=int)
    parser.add_argument("--device_id", default=0, type=int)
    parser.add_argument("--data_path", default="datasets/mptraj/finetune.db")
    parser.add_argument("--num_workers", default=8, type=int)
    parser.add_argument("--batch_size", default=100, type=int)
    parser.add_argument("--gradient_clip_val", default=0.5, type=float)
    parser.add_argument("--max_epochs", default=50, type=int)
    parser.add_argument("--num_steps", default=100, type=int)
    parser.add_argument("--lr", default=3e-4, type=float)
    parser.add_argument("--save_every_x_epochs", default=5, type=int)
    parser.add_argument("--checkpoint_path", default="ckpts")
    run(parser.parse_args())
