import os
import time
from typing import Dict, Tuple

import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP_th
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler


def to_cuda(x):
    return x.cuda(non_blocking=True) if isinstance(x, torch.Tensor) else x


class Trainer:
    def __init__(self, args, config, output_path, model: nn.Module, train_dataset):
        self.args = args
        self.config = config
        self.output_path = output_path
        self.use_cuda = torch.cuda.is_available()
        self.num_gpus = int(os.environ.get("WORLD_SIZE", "1"))
        if self.num_gpus > 1:
            dist.init_process_group("nccl", rank=args.rank, world_size=self.num_gpus)
            torch.cuda.set_device(args.rank)

        self.model = model.cuda() if self.use_cuda else model
        self.criterion = model.get_criterion()
        self.optimizer = torch.optim.AdamW(self.model.parameters(), lr=config.lr)
        self.scaler = torch.cuda.amp.GradScaler() if config.mixed_precision else None
        self.train_dataset = train_dataset
        # read before wrapping: a DDP wrapper does not expose the model's methods
        self.batch_formatter = model.format_batch

        # DISTRIBUTED
        if self.num_gpus > 1:
            self.model = DDP_th(self.model, device_ids=[args.rank], output_device=args.rank)

    def get_train_dataloader(self) -> DataLoader:
        sampler = DistributedSampler(self.train_dataset) if self.num_gpus > 1 else None
        return DataLoader(self.train_dataset, batch_size=self.config.batch_size, sampler=sampler, shuffle=sampler is None)

    def format_batch(self, batch: Dict) -> Dict:
        batch = self.batch_formatter(batch)
        if self.use_cuda:
            batch = {k: to_cuda(v) for k, v in batch.items()}
        return batch

    @staticmethod
    def _model_train_step(batch: Dict, model: nn.Module, criterion: nn.Module) -> Tuple[Dict, Dict]:
        """Run the model's training forward and compute its losses."""
        input_args = [batch, criterion]
        # unwrap model in DDP training
        if hasattr(model, "module"):
            return model.module.train_step(*input_args)  # expect: TCK210
        return model.train_step(*input_args)

    def _optimize(self, batch: Dict, model: nn.Module, optimizer, scaler, criterion) -> Tuple[Dict, Dict, float]:
        step_start_time = time.time()
        optimizer.zero_grad()
        with torch.cuda.amp.autocast(enabled=self.config.mixed_precision):
            outputs, loss_dict = self._model_train_step(batch, model, criterion)

        if torch.isnan(loss_dict["loss"]).any():
            raise RuntimeError(f" > Detected NaN loss - {loss_dict}.")

        if scaler is not None:
            scaler.scale(loss_dict["loss"]).backward()
            scaler.unscale_(optimizer)
            torch.nn.utils.clip_grad_norm_(model.parameters(), self.config.grad_clip)
            scaler.step(optimizer)
            scaler.update()
        else:
            loss_dict["loss"].backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), self.config.grad_clip)
            optimizer.step()
        step_time = time.time() - step_start_time
        return outputs, {k: v.detach() for k, v in loss_dict.items()}, step_time

    def train_step(self, batch: Dict, step: int) -> Tuple[Dict, Dict]:
        batch = self.format_batch(batch)
        outputs, loss_dict, step_time = self._optimize(batch, self.model, self.optimizer, self.scaler, self.criterion)
        if self.args.rank == 0 and step % self.config.print_step == 0:
            print(f"   --> STEP: {step} -- loss: {loss_dict['loss'].item():.5f} -- step_time: {step_time:.3f}")
        return outputs, loss_dict

    def train_epoch(self, epoch: int) -> None:
        loader = self.get_train_dataloader()
        if self.num_gpus > 1:
            loader.sampler.set_epoch(epoch)
        self.model.train()
        for cur_step, batch in enumerate(loader):
            self.train_step(batch, cur_step)

    def fit(self) -> None:
        for epoch in range(self.config.epochs):
            if self.num_gpus > 1:
                dist.barrier()
            self.train_epoch(epoch)
            if self.args.rank in [None, 0]:
                model = self.model.module if self.num_gpus > 1 else self.model
                torch.save({"model": model.state_dict(), "epoch": epoch}, os.path.join(self.output_path, "best_model.pth"))
