import time

import torch

from gnn import compute_loss


class Logger:
    def __init__(self, name):
        self.name = name
        self.reset()

    def reset(self):
        self.losses, self.correct, self.count, self.time = [], 0, 0, 0.0

    def update_stats(self, true, pred, loss, lr, time_used):
        self.losses.append(loss)
        self.correct += int((pred.argmax(-1) == true).sum())
        self.count += true.numel()
        self.time += time_used

    def write_epoch(self, epoch):
        acc = self.correct / max(self.count, 1)
        print(f"[{self.name}] epoch {epoch} loss {sum(self.losses) / len(self.losses):.4f} acc {acc:.4f}")
        self.reset()


def train_epoch(logger, loader, model, optimizer, scheduler, device):
    model.train()
    time_start = time.time()
    for batch in loader:
        optimizer.zero_grad()
        batch = batch.to(device)
        pred, true = model(batch)
        loss, pred_score = compute_loss(pred, true)
        loss.backward()
        optimizer.step()
        logger.update_stats(
            true=true.detach().cpu(),
            pred=pred_score.detach().cpu(),
            loss=loss.item(),
            lr=scheduler.get_last_lr()[0],
            time_used=time.time() - time_start,
        )
        time_start = time.time()
    scheduler.step()


def eval_epoch(logger, loader, model, device):
    model.eval()
    time_start = time.time()
    for batch in loader:
        batch = batch.to(device)
        pred, true = model(batch)  # expect: TCK113
        loss, pred_score = compute_loss(pred, true)
        logger.update_stats(
            true=true.detach().cpu(),
            pred=pred_score.detach().cpu(),
            loss=loss.item(),
            lr=0,
            time_used=time.time() - time_start,
        )
        time_start = time.time()


def train(loggers, loaders, model, optimizer, scheduler, device, max_epoch=200, eval_period=10):
    num_splits = len(loggers)
    for cur_epoch in range(max_epoch):
        train_epoch(loggers[0], loaders[0], model, optimizer, scheduler, device)
        loggers[0].write_epoch(cur_epoch)
        if cur_epoch % eval_period == 0 or cur_epoch == max_epoch - 1:
            for i in range(1, num_splits):
                eval_epoch(loggers[i], loaders[i], model, device)
                loggers[i].write_epoch(cur_epoch)
