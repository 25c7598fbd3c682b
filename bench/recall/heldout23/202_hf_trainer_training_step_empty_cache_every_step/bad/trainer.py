"""A cut-down Trainer: one training_step per batch, optimizer step per accumulation window."""
import math

import torch
from accelerate import Accelerator
from torch import nn
from torch.utils.data import DataLoader, RandomSampler


class TrainingArguments:
    def __init__(self, output_dir, per_device_train_batch_size=8, gradient_accumulation_steps=1,
                 num_train_epochs=3, learning_rate=5e-5, max_grad_norm=1.0, logging_steps=50):
        self.output_dir = output_dir
        self.per_device_train_batch_size = per_device_train_batch_size
        self.gradient_accumulation_steps = gradient_accumulation_steps
        self.num_train_epochs = num_train_epochs
        self.learning_rate = learning_rate
        self.max_grad_norm = max_grad_norm
        self.logging_steps = logging_steps
        self.n_gpu = torch.cuda.device_count()


class TrainerState:
    def __init__(self):
        self.global_step = 0
        self.epoch = 0.0
        self.log_history = []


class Trainer:
    def __init__(self, model: nn.Module, args: TrainingArguments, train_dataset, data_collator=None):
        self.model = model
        self.args = args
        self.train_dataset = train_dataset
        self.data_collator = data_collator
        self.accelerator = Accelerator(gradient_accumulation_steps=args.gradient_accumulation_steps)
        self.state = TrainerState()
        self.optimizer = None
        self.lr_scheduler = None

    def get_train_dataloader(self):
        loader = DataLoader(self.train_dataset, batch_size=self.args.per_device_train_batch_size,
                            sampler=RandomSampler(self.train_dataset), collate_fn=self.data_collator)
        return self.accelerator.prepare(loader)

    def create_optimizer_and_scheduler(self, num_training_steps):
        self.optimizer = torch.optim.AdamW(self.model.parameters(), lr=self.args.learning_rate)
        self.lr_scheduler = torch.optim.lr_scheduler.LambdaLR(
            self.optimizer, lambda step: max(0.0, 1.0 - step / max(1, num_training_steps)))

    def _prepare_inputs(self, inputs):
        return {k: v.to(self.accelerator.device) if isinstance(v, torch.Tensor) else v for k, v in inputs.items()}

    def compute_loss(self, model, inputs):
        outputs = model(**inputs)
        return outputs["loss"] if isinstance(outputs, dict) else outputs[0]

    def training_step(self, model: nn.Module, inputs) -> torch.Tensor:
        model.train()
        inputs = self._prepare_inputs(inputs)

        loss = self.compute_loss(model, inputs)

        del inputs
        torch.cuda.empty_cache()  # expect: TCK203

        if self.args.n_gpu > 1:
            loss = loss.mean()

        self.accelerator.backward(loss)
        return loss.detach() / self.args.gradient_accumulation_steps

    def train(self):
        train_dataloader = self.get_train_dataloader()
        updates_per_epoch = max(len(train_dataloader) // self.args.gradient_accumulation_steps, 1)
        max_steps = math.ceil(self.args.num_train_epochs * updates_per_epoch)
        self.create_optimizer_and_scheduler(max_steps)
        model, self.optimizer = self.accelerator.prepare(self.model, self.optimizer)
        return self._inner_training_loop(model, train_dataloader)

    def _inner_training_loop(self, model, train_dataloader):
        args = self.args
        tr_loss = torch.tensor(0.0, device=self.accelerator.device)
        steps_in_epoch = len(train_dataloader)
        for epoch in range(int(args.num_train_epochs)):
            for step, inputs in enumerate(train_dataloader):
                with self.accelerator.accumulate(model):
                    tr_loss_step = self.training_step(model, inputs)
                tr_loss += tr_loss_step

                is_last_step = step + 1 == steps_in_epoch
                if (step + 1) % args.gradient_accumulation_steps == 0 or is_last_step:
                    if args.max_grad_norm is not None and args.max_grad_norm > 0:
                        self.accelerator.clip_grad_norm_(model.parameters(), args.max_grad_norm)
                    self.optimizer.step()
                    self.lr_scheduler.step()
                    model.zero_grad()
                    self.state.global_step += 1
                    self.state.epoch = epoch + (step + 1) / steps_in_epoch
                    if self.state.global_step % args.logging_steps == 0:
                        self.state.log_history.append(
                            {"loss": tr_loss.item() / args.logging_steps, "step": self.state.global_step})
                        tr_loss.zero_()
        return self.state
