import os

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler

from model import TimeSeriesLM


class CurriculumTrainer:
    def __init__(self, stages, epochs_per_stage=5, lr=2e-4, save_dir="checkpoints"):
        self.stages = stages
        self.epochs_per_stage = epochs_per_stage
        self.lr = lr
        self.save_dir = save_dir
        self.distributed = "WORLD_SIZE" in os.environ and int(os.environ["WORLD_SIZE"]) > 1
        if self.distributed:
            dist.init_process_group("nccl")
            self.rank = dist.get_rank()
            self.local_rank = int(os.environ["LOCAL_RANK"])
            torch.cuda.set_device(self.local_rank)
        else:
            self.rank = 0
            self.local_rank = 0
        self.device = torch.device("cuda", self.local_rank)
        self._initialize_model()

    def _initialize_model(self):
        model = TimeSeriesLM().to(self.device)
        if self.distributed:
            self.model = DDP(model, device_ids=[self.local_rank])
        else:
            self.model = model
        self.optimizer = torch.optim.AdamW(self.model.parameters(), lr=self.lr)

    def _get_model(self):
        """Return the underlying model, unwrapping DDP when needed."""
        return self.model.module if isinstance(self.model, DDP) else self.model

    def _train_one_epoch(self, loader):
        self.model.train()
        total = torch.zeros((), device=self.device)
        for batch in loader:
            batch = {k: v.to(self.device, non_blocking=True) for k, v in batch.items()}
            self.optimizer.zero_grad(set_to_none=True)
            loss = self._get_model().compute_loss(batch)  # expect: TCK210
            loss.backward()
            torch.nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)
            self.optimizer.step()
            total += loss.detach()
        return (total / max(len(loader), 1)).item()

    def _save_checkpoint(self, stage_name, epoch):
        if self.rank != 0:
            return
        os.makedirs(self.save_dir, exist_ok=True)
        torch.save({"model": self._get_model().state_dict(), "optimizer": self.optimizer.state_dict(), "epoch": epoch},
                   os.path.join(self.save_dir, f"{stage_name}_best.pt"))

    def run(self):
        for stage_name, dataset in self.stages:
            sampler = DistributedSampler(dataset) if self.distributed else None
            loader = DataLoader(dataset, batch_size=8, sampler=sampler, shuffle=sampler is None)
            for epoch in range(self.epochs_per_stage):
                if sampler is not None:
                    sampler.set_epoch(epoch)
                avg = self._train_one_epoch(loader)
                if self.rank == 0:
                    print(f"[{stage_name}] epoch {epoch}: train loss {avg:.4f}")
                self._save_checkpoint(stage_name, epoch)
