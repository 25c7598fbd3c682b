from datetime import timedelta

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.optim as optim
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler


class _SingleDevice(nn.Module):
    """Holds the model under `.module` on a single GPU, so the code can always call `self.model.module`."""

    def __init__(self, module):
        super().__init__()
        self.module = module

    def forward(self, *args, **kwargs):
        return self.module(*args, **kwargs)


class BaseMethod(nn.Module):
    """Trains a `BaseModel` with optional DDP and FP16."""

    def __init__(self, model, train_set, params, local_rank=0, use_ddp=False, use_fp16=False):
        super().__init__()
        self.model = model
        self.params = params
        self.local_rank = local_rank
        self.use_ddp = use_ddp
        self.use_fp16 = use_fp16
        self.grad_accum_steps = params["grad_accum_steps"]
        self.clip_grad = params["clip_grad"]
        self.epoch = 0
        self.it = 0
        self._init_env()
        self.sampler = DistributedSampler(train_set) if use_ddp else None
        self.train_loader = DataLoader(train_set, batch_size=params["train_batch_size"],
                                       sampler=self.sampler, shuffle=self.sampler is None, drop_last=True)
        self.optimizer = optim.Adam(self.model.parameters(), lr=params["lr"])
        self.grad_scaler = torch.cuda.amp.GradScaler() if use_fp16 else None

    def _init_env(self):
        if self.use_ddp:
            torch.cuda.set_device(self.local_rank)
            dist.init_process_group("nccl", init_method="env://", timeout=timedelta(hours=2))
            self.device = torch.device(f"cuda:{self.local_rank}")
        else:
            self.device = torch.device("cuda")
        self.model = self.model.to(self.device)
        if self.use_ddp:
            self.model = nn.parallel.DistributedDataParallel(
                self.model, device_ids=[self.local_rank], find_unused_parameters=self.params["ddp_unused_params"])
        else:
            self.model = _SingleDevice(self.model)

    def _loss_function(self, batch_data):
        """Compute and aggregate the weighted losses."""
        out_dict = self.model.module.loss_function(batch_data)  # expect: TCK210
        assert "loss" not in out_dict
        loss = torch.zeros((), device=self.device)
        for loss_name, loss_value in out_dict.items():
            if loss_name.endswith("_loss"):
                loss = loss + loss_value * self.params[f"{loss_name}_w"]
        out_dict["loss"] = loss
        return out_dict

    def _clip_model_grad(self):
        nn.utils.clip_grad_norm_(self.model.parameters(), self.clip_grad)

    def _training_step_fp32(self, batch_data):
        out_dict = self._loss_function(batch_data)
        loss = out_dict["loss"] / self.grad_accum_steps
        loss.backward()
        if (self.epoch_it + 1) % self.grad_accum_steps == 0:
            if self.clip_grad > 0.0:
                self._clip_model_grad()
            self.optimizer.step()
            self.optimizer.zero_grad()
        return out_dict

    def _training_step_fp16(self, batch_data):
        with torch.cuda.amp.autocast():
            out_dict = self._loss_function(batch_data)
            loss = out_dict["loss"] / self.grad_accum_steps
        self.grad_scaler.scale(loss).backward()
        if (self.epoch_it + 1) % self.grad_accum_steps == 0:
            if self.clip_grad > 0.0:
                self.grad_scaler.unscale_(self.optimizer)
                self._clip_model_grad()
            self.grad_scaler.step(self.optimizer)
            self.grad_scaler.update()
            self.optimizer.zero_grad()
        return out_dict

    def _training_step(self, batch_data):
        if self.use_fp16:
            return self._training_step_fp16(batch_data)
        return self._training_step_fp32(batch_data)

    def _training_epoch(self):
        self.model.train()
        self.optimizer.zero_grad()
        self.model.module._training_epoch_start(method=self)
        if self.sampler is not None:
            self.sampler.set_epoch(self.epoch)
        for batch_idx, batch_data in enumerate(self.train_loader):
            self.epoch_it = batch_idx
            batch_data = {k: v.to(self.device) for k, v in batch_data.items()}
            out_dict = self._training_step(batch_data)
            self.it += 1
            if self.local_rank == 0 and self.it % self.params["print_iter"] == 0:
                print(f"epoch {self.epoch} it {self.it} loss {out_dict['loss'].item():.4f}")

    def fit(self):
        for self.epoch in range(self.params["max_epochs"]):
            self._training_epoch()
            if self.local_rank == 0:
                torch.save(self.model.module.state_dict(), f"model_{self.epoch}.pth")
