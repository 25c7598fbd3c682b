import torch
from torch import nn


class Trainer:
    def __init__(self, model, optimizer, lr_scheduler, train_dataloader, max_grad_norm=1.0):
        self.model = model
        self.optimizer = optimizer
        self.lr_scheduler = lr_scheduler
        self.train_dataloader = train_dataloader
        self.max_grad_norm = max_grad_norm

    def training_step(self, model: nn.Module, inputs: dict) -> torch.Tensor:
        model.train()
        outputs = model(**inputs)
        loss = outputs[0]
        loss.backward()
        return loss

    def train(self, num_train_epochs: int):
        model = self.model
        tr_loss = torch.tensor(0.0)
        global_step = 0
        for epoch in range(num_train_epochs):
            for step, inputs in enumerate(self.train_dataloader):
                tr_loss += self.training_step(model, inputs)  # expect: TCK101
                torch.nn.utils.clip_grad_norm_(model.parameters(), self.max_grad_norm)
                self.optimizer.step()
                self.lr_scheduler.step()
                model.zero_grad()
                global_step += 1
        return global_step, tr_loss.item() / max(global_step, 1)
