"""Trainer for the reference-based detector: episodic detection batches, optional triplet batches, AMP."""
import logging
from typing import Dict, Optional

import torch
from torch.amp import GradScaler, autocast
from torch.utils.data import DataLoader
from tqdm import tqdm

from src.losses.combined_loss import ReferenceBasedDetectionLoss


class RefDetTrainer:
    def __init__(self, model, optimizer, scheduler=None, device="cuda", mixed_precision=True,
                 gradient_accumulation_steps=4, gradient_clip_norm=10.0, grad_norm_window=100):
        self.model = model.to(device)
        self.optimizer = optimizer
        self.scheduler = scheduler
        self.device = device
        self.mixed_precision = mixed_precision
        self.gradient_accumulation_steps = gradient_accumulation_steps
        self.gradient_clip_norm = gradient_clip_norm
        self.grad_norm_window = grad_norm_window
        self.grad_norm_history = []
        self.loss_fn = ReferenceBasedDetectionLoss()
        self.scaler = GradScaler() if mixed_precision else None
        self.global_step = 0
        self.logger = logging.getLogger("refdet")

    def _move_batch_to_device(self, batch: Dict) -> Dict:
        return {k: v.to(self.device) if torch.is_tensor(v) else v for k, v in batch.items()}

    def _forward_step(self, batch: Dict):
        outputs = self.model(query_images=batch["query_images"], support_images=batch["support_images"])
        losses = self.loss_fn(outputs, batch["targets"])
        return losses["total"], {k: float(v.detach()) for k, v in losses.items()}

    def train_epoch(self, train_loader: DataLoader, epoch: int,
                    triplet_loader: Optional[DataLoader] = None, triplet_ratio: float = 0.0) -> Dict[str, float]:
        self.model.train()
        total_loss = 0.0
        num_batches = 0
        triplet_iter = iter(triplet_loader) if triplet_loader is not None and triplet_ratio > 0 else None

        for batch_idx, batch in enumerate(tqdm(train_loader, desc=f"Epoch {epoch}")):
            if triplet_iter is not None and torch.rand(1).item() < triplet_ratio:
                try:
                    batch = next(triplet_iter)
                except StopIteration:
                    triplet_iter = iter(triplet_loader)
                    batch = next(triplet_iter)
            batch = self._move_batch_to_device(batch)

            with autocast(device_type="cuda", enabled=self.mixed_precision):
                loss, losses_dict = self._forward_step(batch)
                loss = loss / self.gradient_accumulation_steps

            if not torch.isfinite(loss):
                self.logger.warning(f"non-finite loss at batch {batch_idx}, skipping")
                continue

            # Backward pass
            if self.mixed_precision:
                self.scaler.scale(loss).backward()
                # unscale right away so the gradients can be checked for NaN/Inf
                self.scaler.unscale_(self.optimizer)  # expect: TCK308
            else:
                loss.backward()

            # Optimizer step (with gradient accumulation)
            if (batch_idx + 1) % self.gradient_accumulation_steps == 0:
                clipped_norm = 0.0
                if self.gradient_clip_norm > 0:
                    clipped_norm = torch.nn.utils.clip_grad_norm_(self.model.parameters(),
                                                                  max_norm=self.gradient_clip_norm)
                if len(self.grad_norm_history) >= self.grad_norm_window:
                    self.grad_norm_history.pop(0)
                self.grad_norm_history.append(float(clipped_norm))

                if self.mixed_precision:
                    self.scaler.step(self.optimizer)
                    self.scaler.update()
                else:
                    self.optimizer.step()
                self.optimizer.zero_grad()
                self.global_step += 1
                if self.scheduler is not None:
                    self.scheduler.step()

            total_loss += loss.item() * self.gradient_accumulation_steps
            num_batches += 1

        return {"loss": total_loss / max(num_batches, 1)}

    def train(self, train_loader, num_epochs, triplet_loader=None, triplet_ratio=0.0, save_path="checkpoints/last.pt"):
        for epoch in range(1, num_epochs + 1):
            metrics = self.train_epoch(train_loader, epoch, triplet_loader, triplet_ratio)
            self.logger.info(f"epoch {epoch}: {metrics}")
            torch.save({"epoch": epoch, "model": self.model.state_dict(),
                        "optimizer": self.optimizer.state_dict(),
                        "scaler": self.scaler.state_dict() if self.scaler else None}, save_path)
