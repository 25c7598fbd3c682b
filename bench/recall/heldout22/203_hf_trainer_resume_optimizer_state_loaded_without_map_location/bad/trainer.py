import logging
import os
import random
from typing import Optional

import numpy as np
import torch
from torch import nn
from torch.utils.data import DataLoader, Dataset, RandomSampler
from torch.utils.data.distributed import DistributedSampler

from training_args import TrainingArguments

logger = logging.getLogger(__name__)


def set_seed(seed: int):
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.cuda.manual_seed_all(seed)


def linear_schedule_with_warmup(optimizer, num_warmup_steps, num_training_steps):
    def lr_lambda(step):
        if step < num_warmup_steps:
            return step / max(1, num_warmup_steps)
        return max(0.0, (num_training_steps - step) / max(1, num_training_steps - num_warmup_steps))

    return torch.optim.lr_scheduler.LambdaLR(optimizer, lr_lambda)


class Trainer:
    def __init__(self, model: nn.Module, args: TrainingArguments, train_dataset: Dataset, data_collator=None):
        self.model = model.to(args.device)
        self.args = args
        self.train_dataset = train_dataset
        self.data_collator = data_collator
        self.global_step = 0
        self.epoch = 0
        set_seed(self.args.seed)
        os.makedirs(self.args.output_dir, exist_ok=True)

    def is_world_master(self) -> bool:
        return self.args.local_rank == -1 or torch.distributed.get_rank() == 0

    def get_train_dataloader(self) -> DataLoader:
        sampler = (
            RandomSampler(self.train_dataset)
            if self.args.local_rank == -1
            else DistributedSampler(self.train_dataset)
        )
        return DataLoader(self.train_dataset, batch_size=self.args.train_batch_size, sampler=sampler,
                          collate_fn=self.data_collator)

    def get_optimizers(self, num_training_steps: int):
        no_decay = ["bias", "LayerNorm.weight"]
        groups = [
            {"params": [p for n, p in self.model.named_parameters() if not any(nd in n for nd in no_decay)],
             "weight_decay": self.args.weight_decay},
            {"params": [p for n, p in self.model.named_parameters() if any(nd in n for nd in no_decay)],
             "weight_decay": 0.0},
        ]
        optimizer = torch.optim.AdamW(groups, lr=self.args.learning_rate, eps=self.args.adam_epsilon)
        scheduler = linear_schedule_with_warmup(optimizer, self.args.warmup_steps, num_training_steps)
        return optimizer, scheduler

    def train(self, model_path: Optional[str] = None):
        train_dataloader = self.get_train_dataloader()
        t_total = int(len(train_dataloader) // self.args.gradient_accumulation_steps * self.args.num_train_epochs)
        optimizer, scheduler = self.get_optimizers(num_training_steps=t_total)

        # Check if saved optimizer or scheduler states exist
        if (
            model_path is not None
            and os.path.isfile(os.path.join(model_path, "optimizer.pt"))
            and os.path.isfile(os.path.join(model_path, "scheduler.pt"))
        ):
            # Load in optimizer and scheduler states
            optimizer.load_state_dict(torch.load(os.path.join(model_path, "optimizer.pt")))  # expect: TCK215
            scheduler.load_state_dict(torch.load(os.path.join(model_path, "scheduler.pt")))

        model = self.model
        if self.args.local_rank != -1:
            model = torch.nn.parallel.DistributedDataParallel(
                model, device_ids=[self.args.local_rank], output_device=self.args.local_rank,
                find_unused_parameters=True,
            )

        epochs_trained = 0
        steps_trained_in_current_epoch = 0
        if model_path is not None:
            try:
                self.global_step = int(model_path.split("-")[-1].split("/")[0])
                epochs_trained = self.global_step // (len(train_dataloader) // self.args.gradient_accumulation_steps)
                steps_trained_in_current_epoch = self.global_step % (
                    len(train_dataloader) // self.args.gradient_accumulation_steps
                )
            except ValueError:
                self.global_step = 0

        tr_loss, logging_loss = 0.0, 0.0
        model.zero_grad()
        for epoch in range(epochs_trained, int(self.args.num_train_epochs)):
            if isinstance(train_dataloader.sampler, DistributedSampler):
                train_dataloader.sampler.set_epoch(epoch)
            for step, inputs in enumerate(train_dataloader):
                if steps_trained_in_current_epoch > 0:
                    steps_trained_in_current_epoch -= 1
                    continue
                tr_loss += self._training_step(model, inputs, optimizer)

                if (step + 1) % self.args.gradient_accumulation_steps == 0:
                    torch.nn.utils.clip_grad_norm_(model.parameters(), self.args.max_grad_norm)
                    optimizer.step()
                    scheduler.step()
                    model.zero_grad()
                    self.global_step += 1
                    self.epoch = epoch + (step + 1) / len(train_dataloader)

                    if self.is_world_master() and self.global_step % self.args.logging_steps == 0:
                        logger.info("loss %.4f", (tr_loss - logging_loss) / self.args.logging_steps)
                        logging_loss = tr_loss

                    if self.args.save_steps > 0 and self.global_step % self.args.save_steps == 0:
                        output_dir = os.path.join(self.args.output_dir, f"checkpoint-{self.global_step}")
                        if self.is_world_master():
                            self.save_model(output_dir)
                            torch.save(optimizer.state_dict(), os.path.join(output_dir, "optimizer.pt"))
                            torch.save(scheduler.state_dict(), os.path.join(output_dir, "scheduler.pt"))
        return self.global_step, tr_loss / max(self.global_step, 1)

    def _training_step(self, model, inputs, optimizer) -> float:
        model.train()
        inputs = {k: v.to(self.args.device) for k, v in inputs.items()}
        loss = model(**inputs)[0]
        if self.args.gradient_accumulation_steps > 1:
            loss = loss / self.args.gradient_accumulation_steps
        loss.backward()
        return loss.item()

    def save_model(self, output_dir: str):
        os.makedirs(output_dir, exist_ok=True)
        torch.save(self.model.state_dict(), os.path.join(output_dir, "pytorch_model.bin"))
        torch.save(self.args, os.path.join(output_dir, "training_args.bin"))
