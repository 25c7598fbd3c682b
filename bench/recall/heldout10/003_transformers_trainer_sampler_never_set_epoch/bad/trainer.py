import logging
import os

import torch
from torch.utils.data import DataLoader, RandomSampler
from torch.utils.data.distributed import DistributedSampler
from tqdm import tqdm, trange

logger = logging.getLogger(__name__)


class Trainer:
    """Simple training loop for the project's language models (single GPU or torch.distributed.launch)."""

    def __init__(self, model, args, train_dataset, data_collator):
        self.model = model
        self.args = args
        self.train_dataset = train_dataset
        self.data_collator = data_collator
        if args.local_rank != -1:
            torch.distributed.init_process_group(backend="nccl")

    def get_train_dataloader(self):
        train_sampler = RandomSampler(self.train_dataset) if self.args.local_rank == -1 else DistributedSampler(self.train_dataset)  # expect: TCK206
        return DataLoader(
            self.train_dataset,
            batch_size=self.args.train_batch_size,
            sampler=train_sampler,
            collate_fn=self.data_collator,
        )

    def get_optimizers(self, num_training_steps):
        optimizer = torch.optim.AdamW(self.model.parameters(), lr=self.args.learning_rate)
        scheduler = torch.optim.lr_scheduler.LambdaLR(
            optimizer, lambda step: max(0.0, 1.0 - step / max(1, num_training_steps))
        )
        return optimizer, scheduler

    def train(self):
        train_dataloader = self.get_train_dataloader()
        t_total = len(train_dataloader) * self.args.num_train_epochs
        optimizer, scheduler = self.get_optimizers(t_total)
        model = self.model.to(self.args.device)
        if self.args.local_rank != -1:
            model = torch.nn.parallel.DistributedDataParallel(
                model, device_ids=[self.args.local_rank], output_device=self.args.local_rank
            )

        global_step = 0
        model.zero_grad()
        train_iterator = trange(int(self.args.num_train_epochs), desc="Epoch", disable=self.args.local_rank not in [-1, 0])
        for epoch in train_iterator:
            epoch_iterator = tqdm(train_dataloader, desc="Iteration", disable=self.args.local_rank not in [-1, 0])
            for step, inputs in enumerate(epoch_iterator):
                loss = self._training_step(model, inputs)
                torch.nn.utils.clip_grad_norm_(model.parameters(), self.args.max_grad_norm)
                optimizer.step()
                scheduler.step()
                model.zero_grad()
                global_step += 1
                if self.args.local_rank in [-1, 0] and global_step % self.args.logging_steps == 0:
                    logger.info("step %d loss %.4f", global_step, loss)
        return global_step

    def _training_step(self, model, inputs):
        model.train()
        inputs = {k: v.to(self.args.device) for k, v in inputs.items()}
        outputs = model(**inputs)
        loss = outputs[0]
        loss.backward()
        return loss.item()

    def save_model(self, output_dir):
        os.makedirs(output_dir, exist_ok=True)
        torch.save(self.model.state_dict(), os.path.join(output_dir, "pytorch_model.bin"))
