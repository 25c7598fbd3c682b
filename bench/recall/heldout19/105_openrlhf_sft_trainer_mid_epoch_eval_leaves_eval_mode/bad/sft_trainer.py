from abc import ABC

import torch
from torch.utils.data import DistributedSampler
from tqdm import tqdm

from loss import GPTLMLoss


class SFTTrainer(ABC):
    """Supervised fine-tuning loop driven by a DeepSpeed strategy object."""

    def __init__(self, model, strategy, optim, train_dataloader, eval_dataloader, scheduler,
                 max_epochs=2, tokenizer=None):
        super().__init__()
        self.strategy = strategy
        self.epochs = max_epochs
        self.train_dataloader = train_dataloader
        self.eval_dataloader = eval_dataloader
        self.scheduler = scheduler
        self.model = model
        self.tokenizer = tokenizer
        self.optimizer = optim
        self.loss_fn = GPTLMLoss()

    def fit(self, args):
        if args.eval_steps == -1:
            args.eval_steps = len(self.train_dataloader)
        if args.save_steps == -1:
            args.save_steps = float("inf")

        global_step = 1
        for epoch in range(self.epochs):
            if isinstance(self.train_dataloader.sampler, DistributedSampler):
                self.train_dataloader.sampler.set_epoch(epoch)
            step_bar = tqdm(range(len(self.train_dataloader)), desc="Train step of epoch %d" % epoch,
                            disable=not self.strategy.is_rank_0())

            self.model.train()
            for inputs, attention_masks in self.train_dataloader:
                inputs = inputs.to(torch.cuda.current_device())
                attention_mask = attention_masks.to(torch.cuda.current_device())
                logits = self.model(inputs, attention_mask=attention_mask)
                labels = torch.where(inputs.eq(self.tokenizer.pad_token_id), self.loss_fn.IGNORE_INDEX, inputs)
                loss = self.loss_fn(logits, labels)
                self.strategy.backward(loss, self.model, self.optimizer)
                self.strategy.optimizer_step(self.optimizer, self.model, self.scheduler)

                logs_dict = {"train_loss": loss.item()}
                self.logs_and_checkpoints(args, global_step, step_bar, logs_dict)  # expect: TCK106
                step_bar.update()
                global_step += 1

    def logs_and_checkpoints(self, args, global_step, step_bar, logs_dict):
        if global_step % args.logging_steps == 0:
            step_bar.set_postfix(self.strategy.all_reduce(logs_dict))
        if global_step % args.eval_steps == 0:
            self.evaluate(self.eval_dataloader, global_step)
        if global_step % args.save_steps == 0:
            self.strategy.save_ckpt(self.model, args.ckpt_path, f"global_step{global_step}")

    def evaluate(self, eval_dataloader, steps=0):
        times = 0
        self.model.eval()
        with torch.no_grad():
            loss_sum = 0
            for inputs, attention_masks in eval_dataloader:
                inputs = inputs.to(torch.cuda.current_device())
                attention_mask = attention_masks.to(torch.cuda.current_device())
                logits = self.model(inputs, attention_mask=attention_mask)
                labels = torch.where(inputs.eq(self.tokenizer.pad_token_id), self.loss_fn.IGNORE_INDEX, inputs)
                loss = self.loss_fn(logits, labels)
                times += 1
                loss_sum += loss.item()
            logs = self.strategy.all_reduce({"eval loss": loss_sum / times})
        if self.strategy.is_rank_0():
            print("eval step", steps, logs)
