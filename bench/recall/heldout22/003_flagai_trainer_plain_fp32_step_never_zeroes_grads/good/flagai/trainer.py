import os

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler

from flagai.fp16 import FP16_Module, FP16_Optimizer, DynamicLossScaler
from flagai.schedulers import AnnealingLR


def log_dist(message, ranks=(0,)):
    if not dist.is_initialized() or dist.get_rank() in ranks:
        print(message)


class Trainer:
    """Unified training loop for single-device PyTorch, PyTorch DDP and DeepSpeed."""

    def __init__(self, env_type="pytorch", epochs=1, batch_size=4, lr=1e-5, warm_up=0.1,
                 weight_decay=1e-5, clip_grad=1.0, fp16=False, gradient_accumulation_steps=1,
                 log_interval=10, pytorch_device="cpu", local_rank=0, world_size=1):
        self.env_type = env_type
        self.epochs = epochs
        self.batch_size = batch_size
        self.lr = lr
        self.warm_up = warm_up
        self.weight_decay = weight_decay
        self.clip_grad = clip_grad
        self.fp16 = fp16
        self.gradient_accumulation_steps = gradient_accumulation_steps
        self.log_interval = log_interval
        self.pytorch_device = pytorch_device
        self.local_rank = local_rank
        self.world_size = world_size
        self.accumulate_count = 0
        self.iteration = 0

    def get_dataloader(self, dataset, collate_fn, shuffle=True):
        if self.env_type == "pytorch":
            return DataLoader(dataset, batch_size=self.batch_size, collate_fn=collate_fn, shuffle=shuffle)
        sampler = DistributedSampler(dataset, num_replicas=self.world_size, rank=self.local_rank, shuffle=shuffle)
        return DataLoader(dataset, batch_size=self.batch_size, collate_fn=collate_fn, sampler=sampler)

    def train(self, model=None, optimizer=None, lr_scheduler=None, train_dataset=None, collate_fn=None,
              find_unused_parameters=True):
        train_dataloader = self.get_dataloader(train_dataset, collate_fn)

        if self.env_type == "pytorchDDP":
            model.to(torch.device("cuda", self.local_rank))
            model = DDP(model, device_ids=[self.local_rank], find_unused_parameters=find_unused_parameters)
        elif self.env_type == "pytorch":
            model.to(self.pytorch_device)
        if self.fp16:
            model = FP16_Module(model)

        if optimizer is None:
            optimizer = torch.optim.AdamW(model.parameters(), lr=self.lr, weight_decay=self.weight_decay)
            if self.fp16:
                optimizer = FP16_Optimizer(optimizer)
        if lr_scheduler is None and self.warm_up > 0:
            total = self.epochs * len(train_dataloader)
            lr_scheduler = AnnealingLR(optimizer if not self.fp16 else optimizer.optimizer, start_lr=self.lr,
                                       warmup_iter=int(self.warm_up * total), num_iters=total)

        model.train()
        total_lm_loss = 0.0
        self.iteration = 0
        self.accumulate_count = 0
        for epoch in range(self.epochs):
            log_dist("epoch " + str(epoch))
            if self.env_type != "pytorch":
                train_dataloader.sampler.set_epoch(epoch + self.world_size)

            for iteration_, batch in enumerate(train_dataloader):
                device = torch.device("cuda", self.local_rank) if self.env_type != "pytorch" \
                    else torch.device(self.pytorch_device)
                batch = {k: v.to(device) for k, v in batch.items() if k not in ("uid", "meta", "mode")}
                if self.env_type == "pytorchDDP":
                    lm_loss, _ = self.train_step_pytorchDDP(batch, model, optimizer, lr_scheduler)
                    dist.barrier()
                elif self.env_type == "pytorch":
                    lm_loss, _ = self.train_step_pytorch(batch, model, optimizer, lr_scheduler)
                else:
                    lm_loss, _ = self.train_step_deepspeed(batch, model, optimizer, lr_scheduler)
                    dist.barrier()
                if lm_loss is not None:
                    total_lm_loss += lm_loss.float().item()

                if (self.iteration + 1) % self.log_interval == 0:
                    lr = optimizer.param_groups[0]["lr"]
                    log_dist(f"iteration {self.iteration + 1} lr {lr:.3e} "
                             f"loss {total_lm_loss / self.log_interval:.4f}")
                    total_lm_loss = 0.0
                self.iteration += 1
        return model

    def forward_step(self, data, model, mems=None):
        data["mems"] = mems
        model_output = model(**data)
        return {"loss": model_output["loss"], "logits": model_output["logits"].contiguous().float()}

    def train_step_pytorch(self, data, model, optimizer, lr_scheduler, mems=None):
        """Single training step."""
        step_output = self.forward_step(data, model, mems)
        lm_loss = step_output["loss"]
        lm_loss /= self.gradient_accumulation_steps
        reduced_loss = lm_loss.detach().clone().view(1)
        if not DynamicLossScaler._has_inf_or_nan(reduced_loss):
            if self.fp16 and hasattr(optimizer, "backward"):
                optimizer.backward(lm_loss, update_master_grads=True, retain_graph=True)
            else:
                lm_loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), self.clip_grad)

            if (self.accumulate_count + 1) % self.gradient_accumulation_steps == 0:
                if self.fp16:
                    optimizer.step()
                    optimizer.zero_grad()
                else:
                    optimizer.step()
                    optimizer.zero_grad()
                self.accumulate_count = 0
            else:
                self.accumulate_count += 1
            if lr_scheduler:
                lr_scheduler.step()
        else:
            log_dist("Found NaN loss, skip backward", [0])
            del lm_loss, reduced_loss
            mems = None
            reduced_loss = None
        return reduced_loss, mems

    def train_step_pytorchDDP(self, data, model, optimizer, lr_scheduler, mems=None):
        """Single training step under DistributedDataParallel."""
        from contextlib import nullcontext

        no_sync = model.module.no_sync if self.fp16 else model.no_sync
        mycontext = no_sync if (self.accumulate_count + 1) != self.gradient_accumulation_steps else nullcontext

        with mycontext():
            step_output = self.forward_step(data, model, mems)
            lm_loss = step_output["loss"]
            lm_loss /= self.gradient_accumulation_steps
            reduced_loss = lm_loss.detach().clone().view(1)
            if not DynamicLossScaler._has_inf_or_nan(reduced_loss):
                if self.fp16 and hasattr(optimizer, "backward"):
                    optimizer.backward(lm_loss, update_master_grads=False, retain_graph=True)
                else:
                    lm_loss.backward()
                torch.nn.utils.clip_grad_norm_(model.module.parameters(), self.clip_grad)

                if (self.accumulate_count + 1) % self.gradient_accumulation_steps == 0:
                    if self.fp16:
                        optimizer.update_master_grads()
                        optimizer.step()
                        optimizer.zero_grad()
                    else:
                        optimizer.step()
                        model.zero_grad()
                    self.accumulate_count = 0
                else:
                    self.accumulate_count += 1
                if lr_scheduler:
                    lr_scheduler.step()
                dist.barrier()
            else:
                log_dist("Found NaN loss, skip backward", [0])
                del lm_loss, reduced_loss
                mems = None
                reduced_loss = None
        return reduced_loss, mems

    def train_step_deepspeed(self, data, model, optimizer, lr_scheduler, mems=None):
        """Single training step with a DeepSpeed engine (it clears gradients in `model.step()`)."""
        boundary = (self.accumulate_count + 1) % self.gradient_accumulation_steps == 0
        model.set_gradient_accumulation_boundary(boundary)
        step_output = self.forward_step(data, model, mems)
        lm_loss = step_output["loss"]
        reduced_loss = lm_loss.detach().clone().view(1)
        dist.all_reduce(reduced_loss)
        reduced_loss = reduced_loss / self.world_size
        if not DynamicLossScaler._has_inf_or_nan(reduced_loss):
            model.backward(lm_loss)
            if boundary:
                self.accumulate_count = 0
                model.step()
            else:
                self.accumulate_count += 1
        else:
            log_dist("Found NaN loss, skip backward", [0])
            mems = []
            reduced_loss = None
        return reduced_loss, mems
