from copy import deepcopy

import numpy as np
import torch
from torch.optim.lr_scheduler import ReduceLROnPlateau


def move_batch_to_device(batch, device):
    return {k: (v.to(device) if isinstance(v, torch.Tensor) else v) for k, v in batch.items()}


class Trainer:
    def __init__(self, problem, train_data, dev_data=None, optimizer=None, epochs=1000,
                 train_metric="train_loss", dev_metric="dev_loss", eval_metric="dev_loss",
                 clip=100.0, patience=5, warmup=0, lr_scheduler=False, device="cpu"):
        self.model = problem
        self.optimizer = optimizer if optimizer is not None else torch.optim.Adam(problem.parameters(), 0.01)
        self.train_data = train_data
        self.dev_data = dev_data
        self.epochs = epochs
        self.train_metric = train_metric
        self.dev_metric = dev_metric
        self.eval_metric = eval_metric
        self.clip = clip
        self.patience = patience
        self.warmup = warmup
        self.badcount = 0
        self.device = device
        self.lr_scheduler = ReduceLROnPlateau(self.optimizer, mode="min", factor=0.5, patience=100) if lr_scheduler else None
        self.best_devloss = np.finfo(np.float32).max
        self.best_model = deepcopy(self.model.state_dict())

    def train(self):
        for i in range(self.epochs):
            self.model.train()
            losses = []
            for t_batch in self.train_data:
                t_batch["epoch"] = i
                t_batch = move_batch_to_device(t_batch, self.device)
                output = self.model(t_batch)
                self.optimizer.zero_grad()
                output[self.train_metric].backward()
                torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.clip)
                self.optimizer.step()
                losses.append(output[self.train_metric].detach())
            output[f"mean_{self.train_metric}"] = torch.mean(torch.stack(losses))

            if self.lr_scheduler is not None:
                self.lr_scheduler.step(output[f"mean_{self.train_metric}"])

            with torch.set_grad_enabled(self.model.grad_inference):
                self.model.eval()
                if self.dev_data is not None:
                    dev_losses = []
                    for d_batch in self.dev_data:
                        eval_output = self.model(move_batch_to_device(d_batch, self.device))
                        dev_losses.append(eval_output[self.dev_metric])
                    eval_output[f"mean_{self.dev_metric}"] = torch.mean(torch.stack(dev_losses))
                    output = {**output, **eval_output}
                if output[self.eval_metric] < self.best_devloss:
                    self.best_model = deepcopy(self.model.state_dict())
                    self.best_devloss = output[self.eval_metric].detach()
                    self.badcount = 0
                elif i > self.warmup:
                    self.badcount += 1
                if self.badcount > self.patience:
                    print("Early stopping!!!")
                    break
        self.model.load_state_dict(self.best_model)
        return self.best_model
