from collections import defaultdict
from typing import Optional

import torch
import torch.nn.functional as F
from attr import define

from pruner import BasePruner, BaseScheduler


@define(slots=False)
class Trainer:
    model: torch.nn.Module
    optimizer: torch.optim.Optimizer
    pdataset: object
    pdataset_eval: object
    batch_size: int
    vocab_size: int
    mask_percent: float
    modelpath: str
    pruner: BasePruner
    logger: object
    scheduler: Optional[BaseScheduler] = None
    mixed_precision: bool = False
    scaler: Optional[torch.cuda.amp.GradScaler] = None
    log_acc_steps: int = 100
    running_loss_steps: int = 0
    lr_warmup_steps: int = 10_000
    losses_weights: dict = defaultdict(lambda: 1.0)
    running_losses: dict = defaultdict(lambda: 0.0)

    def __attrs_post_init__(self):
        self.scaler = torch.cuda.amp.GradScaler(enabled=self.mixed_precision)
        self.sgd_optimizer = torch.optim.SGD(params=self.model.parameters(), lr=self.optimizer.param_groups[0]["lr"])
        self.sgd_scaler = torch.cuda.amp.GradScaler(enabled=self.mixed_precision)

    def optimize(self, optimizer, scaler, loss, step, run_after_backprop):
        optimizer.zero_grad()
        scaler.scale(loss).backward()
        scaler.unscale_(optimizer)
        if run_after_backprop:
            self.pruner.after_backprop(step)
        scaler.step(optimizer)
        scaler.update()

    def _pruning_step(self, step):
        if self.scheduler and self.scheduler.is_time_to_prune(step):
            self.pruner.prune(self.scheduler.prob)

    def update_loss_stats(self, losses):
        for k, v in losses.items():
            self.running_losses[k] += v.item()

    def scale_losses(self, losses):
        return {k: v * self.losses_weights[k] for k, v in losses.items()}

    def _get_mask_loss(self, x_set, y_token_set, y_mask_set):
        model_output = self.model(x_set)
        mask_loss = F.cross_entropy(
            model_output.reshape(-1, self.vocab_size),
            y_token_set.reshape(-1).long(),
            reduction="none",
        )
        mask_loss *= y_mask_set.reshape(-1)
        return mask_loss.mean() / self.mask_percent

    def _task_train_step(self, dataset, step):
        batch = dataset.get_batch()
        with torch.autocast(device_type="cuda", enabled=self.mixed_precision, dtype=torch.float16):
            losses = {"mask": self._get_mask_loss(batch.masked_tokens, batch.tokens, batch.mask_mask)}
        self.update_loss_stats(losses)
        scaled_losses = self.scale_losses(losses)
        self.optimize(self.optimizer, self.scaler, sum(scaled_losses.values()), step, run_after_backprop=True)

    def _model_train_step(self, step):
        losses = self.pruner.get_auxiliary_loss()
        self.update_loss_stats(losses)
        scaled_losses = self.scale_losses(losses)
        self.optimize(self.sgd_optimizer, self.sgd_scaler, sum(scaled_losses.values()), step,
                      run_after_backprop=False)

    def _train_step(self, dataset, step):
        self._task_train_step(dataset, step)
        self._model_train_step(step)

    def _log_train_stats(self, step):
        if step and step % self.log_acc_steps == 0:
            for k, v in self.running_losses.items():
                self.logger.report_scalar(title="loss", series=k, value=v / self.running_loss_steps, iteration=step)
                self.running_losses[k] = 0.0
            self.running_loss_steps = 0

    def _eval_step(self, step, sample=10, log_values=True):
        self.model.eval()
        with torch.no_grad():
            total_mask_loss = 0.0
            for _ in range(sample):
                batch = self.pdataset_eval.get_batch()
                mask_loss = self._get_mask_loss(batch.masked_tokens, batch.tokens, batch.mask_mask)
                total_mask_loss += mask_loss.item()
            total_mask_loss /= sample
            if log_values:
                self.logger.report_scalar(title="loss", series="eval_mask", value=total_mask_loss, iteration=step)
            return total_mask_loss

    def set_lr(self, lr):
        for optimizer in (self.optimizer, self.sgd_optimizer):
            for param_group in optimizer.param_groups:
                param_group["lr"] = lr

    def train(self, n_steps, n_steps_eval):
        target_lr = self.optimizer.param_groups[0]["lr"]
        for step in range(n_steps):
            if step <= self.lr_warmup_steps and self.lr_warmup_steps > 0:
                self.set_lr(target_lr * step / self.lr_warmup_steps)

            self._pruning_step(step)
            self._train_step(dataset=self.pdataset, step=step)
            self.running_loss_steps += 1
            self._log_train_stats(step)
            if step % n_steps_eval == 0:
                eval_loss = self._eval_step(step)  # expect: TCK106
                print("Eval loss:", eval_loss)
                torch.save(self.model.state_dict(), f"{self.modelpath}/model.pt")
            print(f"Step {step}")
