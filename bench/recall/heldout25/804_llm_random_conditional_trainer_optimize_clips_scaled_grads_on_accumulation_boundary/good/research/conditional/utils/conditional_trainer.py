"""Trainer for the conditional (MoE) language-model experiments, with gradient accumulation over batch chunks."""
import copy
from typing import Literal, Optional

import torch
from attr import define

from research.conditional.utils.misc_tools import get_ith_chunk
from research.conditional.utils.model_utils import make_loss_function


@define(slots=False)
class ConditionalTrainer:
    model: torch.nn.Module
    optimizer: torch.optim.Optimizer
    train_dataloader: object
    vocab_size: int
    mixed_precision: bool
    model_type: Literal["bert", "gpt"]
    scaler: Optional[torch.amp.GradScaler] = None
    gradient_clipping: Optional[float] = None
    gradient_accumulation_steps: int = 1
    save_weights_path: Optional[str] = None
    save_weights_interval: int = 1000
    lr_warmup_steps: int = 1

    def __attrs_post_init__(self):
        self.scaler = torch.amp.GradScaler("cuda", enabled=self.mixed_precision)
        self._calculate_loss = make_loss_function(self.model_type)
        self.lr_scheduler = torch.optim.lr_scheduler.LambdaLR(
            self.optimizer, lr_lambda=lambda i: min(1.0, (i + 1) / self.lr_warmup_steps))

    def train(self, n_steps: int):
        for step in range(n_steps + 1):
            self._train_step(step)
            if step % 1000 == 0:
                print(f"Step {step}")

    def _optimize(self, loss, should_apply_gradient=False):
        # gradients of several chunks are summed, so each chunk's loss is averaged here
        loss /= self.gradient_accumulation_steps
        if self.gradient_accumulation_steps == 1:
            self.optimizer.zero_grad()
        self.scaler.scale(loss).backward()
        if should_apply_gradient:
            if self.gradient_clipping is not None:
                self.scaler.unscale_(self.optimizer)
                torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.gradient_clipping)
            self.scaler.step(self.optimizer)
            if self.gradient_accumulation_steps > 1:
                self.optimizer.zero_grad()
            self.scaler.update()

    def _train_step(self, step):
        self.model.train()
        processed_batch = self.train_dataloader.get_batch()
        self.optimize_with_gradient_accumulation(processed_batch)
        self.lr_scheduler.step()
        self._save_weights(step)

    def optimize_with_gradient_accumulation(self, processed_batch):
        """Split the batch into chunks, accumulate their gradients, apply them after the last chunk."""
        loss_value = 0.0
        for i in range(self.gradient_accumulation_steps):
            chunk = copy.deepcopy(processed_batch)
            for tensor in chunk:
                tensor.data = get_ith_chunk(tensor.data, self.gradient_accumulation_steps, i)
            loss = self._calculate_loss(batch=chunk, model=self.model, mixed_precision=self.mixed_precision,
                                        vocab_size=self.vocab_size)
            should_apply_gradient = i == self.gradient_accumulation_steps - 1
            self._optimize(loss, should_apply_gradient=should_apply_gradient)
            loss_value += loss.item()
        return loss_value

    def _save_weights(self, step):
        if self.save_weights_path is not None and step % self.save_weights_interval == 0:
            checkpoint = {"model": self.model.state_dict(), "optimizer": self.optimizer.state_dict(),
                          "scaler": self.scaler.state_dict()}
            torch.save(checkpoint, self.save_weights_path)
            print(f"Weights saved to {self.save_weights_path} (step {step})")
