import logging

import numpy as np
import torch
import torch.distributed

from checkpoint import CheckpointHandler, CheckpointState


def train_one_epoch(model, loss_fn, loader, optimizer, max_grad_norm, device):
    model.train()
    for positions, energies in loader:
        positions, energies = positions.to(device), energies.to(device)
        optimizer.zero_grad(set_to_none=True)
        loss = loss_fn(model(positions).squeeze(-1), energies)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=max_grad_norm)
        optimizer.step()


@torch.no_grad()
def evaluate(model, loss_fn, loader, device):
    model.eval()
    total, count = 0.0, 0
    for positions, energies in loader:
        positions, energies = positions.to(device), energies.to(device)
        total += loss_fn(model(positions).squeeze(-1), energies).item() * len(energies)
        count += len(energies)
    return total / max(count, 1)


def train(model, distributed_model, loss_fn, train_loader, valid_loader, train_sampler,
          optimizer, lr_scheduler, checkpoint_handler: CheckpointHandler, max_num_epochs,
          patience, max_grad_norm, device, rank=0, distributed=False):
    lowest_loss = np.inf
    patience_counter = 0
    keep_last = False
    for epoch in range(max_num_epochs):
        if distributed:
            train_sampler.set_epoch(epoch)
        net = distributed_model if distributed_model is not None else model
        train_one_epoch(net, loss_fn, train_loader, optimizer, max_grad_norm, device)
        if distributed:
            torch.distributed.barrier()

        valid_loss = evaluate(net, loss_fn, valid_loader, device)
        lr_scheduler.step(valid_loss)
        if rank == 0:
            logging.info(f"epoch {epoch}: valid loss {valid_loss:.5f}")

        if valid_loss >= lowest_loss:
            patience_counter += 1
            if patience_counter >= patience:
                logging.info(f"Stopping after {patience_counter} epochs without improvement")
                break
        else:
            lowest_loss = valid_loss
            patience_counter = 0
            checkpoint_handler.save(
                state=CheckpointState(model, optimizer, lr_scheduler),
                epochs=epoch,
                keep_last=keep_last,
            )
            keep_last = False
        if distributed:
            torch.distributed.barrier()
