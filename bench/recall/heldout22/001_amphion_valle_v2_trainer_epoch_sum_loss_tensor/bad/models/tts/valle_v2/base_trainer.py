import math
import os
import time

import accelerate
import torch
from accelerate.utils import ProjectConfiguration
from tqdm import tqdm


class BaseTrainer:
    """Accelerate-driven trainer shared by the AR and NAR VALL-E stages."""

    def __init__(self, args=None, cfg=None):
        self.args = args
        self.cfg = cfg
        self.exp_dir = os.path.join(args.log_dir, args.exp_name)
        self.checkpoint_dir = os.path.join(self.exp_dir, "checkpoint")
        self._init_accelerator()

        self.batch_count = 0
        self.step = 0
        self.epoch = 0
        self.max_epoch = self.cfg.train.max_epoch if self.cfg.train.max_epoch > 0 else float("inf")

        self.train_dataloader, self.valid_dataloader = self._build_dataloader()
        self.model = self._build_model()
        self.optimizer = self._build_optimizer()
        self._accelerator_prepare()

    def _init_accelerator(self):
        project_config = ProjectConfiguration(project_dir=self.exp_dir, logging_dir=os.path.join(self.exp_dir, "log"))
        self.accelerator = accelerate.Accelerator(
            gradient_accumulation_steps=self.cfg.train.gradient_accumulation_step,
            log_with=self.cfg.train.tracker,
            project_config=project_config,
        )

    def _accelerator_prepare(self):
        self.model, self.optimizer, self.train_dataloader, self.valid_dataloader = self.accelerator.prepare(
            self.model, self.optimizer, self.train_dataloader, self.valid_dataloader
        )

    def _build_dataloader(self):
        raise NotImplementedError

    def _build_model(self):
        raise NotImplementedError

    def _build_optimizer(self):
        return torch.optim.AdamW(
            self.model.parameters(),
            lr=self.cfg.train.adamw.lr,
            betas=(0.9, 0.95),
            weight_decay=self.cfg.train.adamw.weight_decay,
        )

    def _forward_step(self, batch):
        raise NotImplementedError

    def save_checkpoint(self):
        if self.accelerator.is_main_process:
            path = os.path.join(self.checkpoint_dir, f"epoch-{self.epoch:04d}_step-{self.step:07d}")
            self.accelerator.save_state(path)

    def train_loop(self):
        self.accelerator.wait_for_everyone()
        self.model.train()
        self.optimizer.zero_grad()
        while self.epoch < self.max_epoch:
            train_loss = self._train_epoch()
            print(f"  |- Train/Loss: {train_loss:.6f}")
            valid_loss = self._valid_epoch()
            print(f"  |- Valid/Loss: {valid_loss:.6f}")
            self.accelerator.log({"Epoch/Train Loss": train_loss, "Epoch/Valid Loss": valid_loss}, step=self.epoch)
            self.accelerator.wait_for_everyone()
            self.epoch += 1
        self.accelerator.end_training()

    def get_lr(self, it):
        sched = self.cfg.train.scheduler
        if it < sched.warmup_steps:
            return self.cfg.train.adamw.lr * it / sched.warmup_steps
        if it > sched.total_steps:
            return sched.min_lr
        ratio = (it - sched.warmup_steps) / (sched.total_steps - sched.warmup_steps)
        coeff = 0.5 * (1.0 + math.cos(math.pi * ratio))
        return sched.min_lr + coeff * (self.cfg.train.adamw.lr - sched.min_lr)

    def _train_epoch(self):
        self.model.train()
        epoch_sum_loss: float = 0.0
        ema_loss = None
        start = time.time()

        for batch in tqdm(self.train_dataloader, desc=f"Training Epoch {self.epoch}",
                          disable=not self.accelerator.is_main_process):
            lr = self.get_lr(self.step)
            for param_group in self.optimizer.param_groups:
                param_group["lr"] = lr

            with self.accelerator.accumulate(self.model):
                loss = self._train_step(batch)
                current = loss.item()
                ema_loss = 0.99 * ema_loss + 0.01 * current if ema_loss is not None else current
                self.accelerator.backward(loss)
                if self.accelerator.sync_gradients:
                    self.accelerator.clip_grad_norm_(self.model.parameters(), 1.0)
                self.optimizer.step()
                self.optimizer.zero_grad()
            self.batch_count += 1

            if self.accelerator.sync_gradients:
                if self.step % self.cfg.train.save_checkpoint_stride[0] == 0:
                    self.accelerator.wait_for_everyone()
                    self.save_checkpoint()
                if self.accelerator.is_main_process and self.step % 100 == 0:
                    print(f"EMA Loss: {ema_loss:.6f} ({time.time() - start:.1f}s)")
                self.accelerator.log(
                    {"Step/Train Loss": loss, "Step/Learning Rate": self.optimizer.param_groups[0]["lr"]},
                    step=self.step,
                )
                epoch_sum_loss += loss  # expect: TCK101
                self.step += 1

        return epoch_sum_loss / len(self.train_dataloader) * self.cfg.train.gradient_accumulation_step

    @torch.inference_mode()
    def _valid_epoch(self):
        self.model.eval()
        epoch_sum_loss = 0.0
        for batch in tqdm(self.valid_dataloader, desc=f"Validating Epoch {self.epoch}",
                          disable=not self.accelerator.is_main_process):
            batch_loss = self._valid_step(batch)
            epoch_sum_loss += batch_loss.item()
        return epoch_sum_loss / len(self.valid_dataloader)

    def _train_step(self, batch):
        return self._forward_step(batch)

    @torch.inference_mode()
    def _valid_step(self, batch):
        return self._forward_step(batch)
