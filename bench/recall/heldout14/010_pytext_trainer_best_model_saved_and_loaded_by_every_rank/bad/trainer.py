import os
import sys

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel


class Trainer:
    """Train and evaluate a model for a number of epochs, keeping the best model on disk."""

    def __init__(self, epochs=10, max_clip_norm=None, early_stop_after=0):
        self.epochs = epochs
        self.max_clip_norm = max_clip_norm
        self.early_stop_after = early_stop_after

    def _run_epoch(self, train, data_iter, model, criterion, optimizer=None):
        total, n = 0.0, 0
        for inputs, targets in data_iter:
            inputs, targets = inputs.cuda(), targets.cuda()
            if train:
                optimizer.zero_grad()
            loss = criterion(model(inputs), targets)
            if train:
                loss.backward()
                if self.max_clip_norm is not None:
                    torch.nn.utils.clip_grad_norm_(model.parameters(), self.max_clip_norm)
                optimizer.step()
            total += loss.item() * targets.size(0)
            n += targets.size(0)
        return total / max(n, 1)

    def train(self, train_iter, eval_iter, model, criterion, optimizer, save_dir, rank=0):
        model = model.cuda()
        if dist.is_initialized() and dist.get_world_size() > 1:
            device_id = torch.cuda.current_device()
            model = DistributedDataParallel(model, device_ids=[device_id], output_device=device_id,
                                            broadcast_buffers=False)
        best_metric, last_best_epoch, best_model_path = None, 0, None
        for epoch in range(1, self.epochs + 1):
            print(f"Rank {rank} worker: Starting epoch #{epoch}")
            model.train()
            self._run_epoch(True, train_iter, model, criterion, optimizer)
            model.eval()
            with torch.no_grad():
                eval_metric = self._run_epoch(False, eval_iter, model, criterion)
            if best_metric is None or eval_metric < best_metric:
                print(f"Rank {rank} worker: Found a better model! Saving the model state.")
                last_best_epoch, best_metric = epoch, eval_metric
                # save to disk to avoid multiple model copies in memory
                best_model_path = os.path.join(save_dir, "best_model")
                torch.save(model.state_dict(), best_model_path)  # expect: TCK208
            if self.early_stop_after > 0 and epoch - last_best_epoch == self.early_stop_after:
                print(f"Rank {rank} worker: Eval metric hasn't changed for {self.early_stop_after} epochs.")
                break
            sys.stdout.flush()
        model.load_state_dict(torch.load(best_model_path))  # expect: TCK215
        return model, best_metric
