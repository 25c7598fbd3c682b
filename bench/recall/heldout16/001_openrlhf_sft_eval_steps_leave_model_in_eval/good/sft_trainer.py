import torch
import torch.nn as nn
from tqdm import tqdm

IGNORE_INDEX = -100


class GPTLMLoss(nn.Module):
    def __init__(self):
        super().__init__()
        self.loss = nn.CrossEntropyLoss(ignore_index=IGNORE_INDEX)

    def forward(self, logits, labels):
        shift_logits = logits[..., :-1, :].contiguous()
        shift_labels = labels[..., 1:].contiguous()
        return self.loss(shift_logits.view(-1, shift_logits.size(-1)), shift_labels.view(-1))


class SFTTrainer:
    def __init__(self, model, strategy, optim, train_dataloader, eval_dataloader, scheduler, tokenizer, max_epochs=2):
        self.model = model
        self.strategy = strategy
        self.optimizer = optim
        self.train_dataloader = train_dataloader
        self.eval_dataloader = eval_dataloader
        self.scheduler = scheduler
        self.tokenizer = tokenizer
        self.epochs = max_epochs
        self.loss_fn = GPTLMLoss()

    def _labels(self, inputs, prompt_lens):
        labels = torch.where(inputs.eq(self.tokenizer.pad_token_id), IGNORE_INDEX, inputs)
        for label, source_len in zip(labels, prompt_lens):
            label[:source_len] = IGNORE_INDEX
        return labels

    def fit(self, args):
        if args.eval_steps == -1:
            args.eval_steps = len(self.train_dataloader)
        global_step = 1
        for epoch in range(self.epochs):
            step_bar = tqdm(range(len(self.train_dataloader)), desc=f"Train step of epoch {epoch}")
            # train
            self.model.train()
            for prompt_lens, inputs, attention_masks in self.train_dataloader:
                inputs = inputs.to(torch.cuda.current_device())
                attention_mask = attention_masks.to(torch.cuda.current_device())
                logits = self.model(inputs, attention_mask=attention_mask).logits
                loss = self.loss_fn(logits, self._labels(inputs, prompt_lens))
                self.strategy.backward(loss, self.model, self.optimizer)
                self.strategy.optimizer_step(self.optimizer, self.model, self.scheduler)
                logs_dict = {"train_loss": loss.item()}
                self.logs_and_checkpoints(args, global_step, step_bar, logs_dict)
                step_bar.update()
                global_step += 1

    def logs_and_checkpoints(self, args, global_step, step_bar, logs_dict):
        if global_step % args.logging_steps == 0:
            step_bar.set_postfix(self.strategy.all_reduce(logs_dict))
        if global_step % args.eval_steps == 0:
            self.evaluate(self.eval_dataloader, global_step)
        if global_step % args.save_steps == 0 and self.strategy.is_rank_0():
            self.model.save_pretrained(f"{args.ckpt_path}/global_step{global_step}")

    def evaluate(self, eval_dataloader, steps=0):
        self.model.eval()
        with torch.no_grad():
            loss_sum, times = 0.0, 0
            for prompt_lens, inputs, attention_masks in eval_dataloader:
                inputs = inputs.to(torch.cuda.current_device())
                attention_mask = attention_masks.to(torch.cuda.current_device())
                logits = self.model(inputs, attention_mask=attention_mask).logits
                loss_sum += self.loss_fn(logits, self._labels(inputs, prompt_lens)).item()
                times += 1
            logs = self.strategy.all_reduce({"eval loss": loss_sum / max(times, 1)})
        if self.strategy.is_rank_0():
            print(f"step {steps}: {logs}")
        self.model.train()  # reset model state
