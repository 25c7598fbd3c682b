import logging
import time

import torch
import torch.distributed as dist
from torch.distributed.fsdp import MixedPrecisionPolicy, fully_shard
from torch.distributed.tensor import DTensor
from torch.utils.data import DataLoader

from model import MLP, AttentionBlock, Model
from train_logger import TRAIN, TrainLogger

logger = logging.getLogger(__name__)


def is_root():
    return not dist.is_initialized() or dist.get_rank() == 0


class Trainer:
    def __init__(self, cf):
        self.cf = cf
        self.log_grad_norms = cf.get("log_grad_norms", False)
        self.device = torch.device(f"cuda:{cf.local_rank}")
        self.train_logger = TrainLogger(cf.run_id)
        self.last_grad_norm = 0.0

    def run(self, dataset):
        cf = self.cf
        self.data_loader = DataLoader(dataset, batch_size=cf.batch_size_per_gpu, num_workers=4)

        with torch.device("meta"):
            self.model = Model(cf)

        if cf.with_ddp and cf.with_fsdp:
            fsdp_kwargs = {
                "mp_policy": MixedPrecisionPolicy(param_dtype=torch.bfloat16, reduce_dtype=torch.float32)
                if cf.with_mixed_precision
                else None,
            }
            for stack in (self.model.ae_local_blocks, self.model.ae_global_blocks, self.model.fe_blocks):
                for module in stack.modules():
                    if isinstance(module, (MLP, AttentionBlock)):
                        fully_shard(module, **fsdp_kwargs)
            fully_shard(self.model)

        self.model.to_empty(device="cuda")
        self.model.reset_parameters()

        self.optimizer = torch.optim.AdamW(
            self.model.parameters(), lr=cf.lr_start, weight_decay=cf.weight_decay, betas=(0.9, 0.95)
        )
        self.grad_scaler = torch.amp.GradScaler("cuda")

        for epoch in range(cf.num_epochs):
            self.train(epoch)

    def train(self, epoch):
        cf = self.cf
        self.model.train()
        log_interval = cf.log_interval
        self.t_start = time.time()
        for bidx, (x, y, forecast_steps) in enumerate(self.data_loader):
            x, y = x.to(self.device), y.to(self.device)
            with torch.autocast(device_type="cuda", dtype=torch.bfloat16, enabled=cf.with_mixed_precision):
                preds = self.model(x, int(forecast_steps[0]))
            loss = torch.nn.functional.mse_loss(preds.float(), y)

            self.optimizer.zero_grad()
            self.grad_scaler.scale(loss).backward()

            self.grad_scaler.unscale_(self.optimizer)
            total_norm = torch.nn.utils.clip_grad_norm_(self.model.parameters(), max_norm=cf.grad_clip)

            if bidx % log_interval == 0 and self.log_grad_norms:
                self._log_instant_grad_norms(TRAIN, total_norm)

            self.grad_scaler.step(self.optimizer)
            self.grad_scaler.update()

            if bidx % log_interval == 0 and is_root():
                logger.info(
                    f"{epoch:03d} : {bidx:05d} : loss = {loss.item():.4E} "
                    f"(gradient norm={self.last_grad_norm:.3f}, {time.time() - self.t_start:.1f}s)"
                )

    @staticmethod
    def _get_tensor_item(tensor):
        """Under FSDP2 a norm is a DTensor holding a pending reduction: reduce it before reading."""
        return tensor.full_tensor().item() if isinstance(tensor, DTensor) else tensor.item()

    def _log_instant_grad_norms(self, stage, total_norm):
        """Log instantaneous gradient norms, total and per parameter."""
        self.last_grad_norm = self._get_tensor_item(total_norm)
        grad_norms = {"total_grad_norm": self.last_grad_norm}
        for name, param in self.model.named_parameters():
            if param.grad is not None:
                grad_norms["grad_norm_" + name] = self._get_tensor_item(param.grad.norm())
        if is_root():
            self.train_logger.log_metrics(stage, grad_norms)
