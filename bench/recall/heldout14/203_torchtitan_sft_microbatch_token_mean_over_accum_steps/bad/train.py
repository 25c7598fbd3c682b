import torch
import torch.distributed as dist
from torch.distributed.fsdp import fully_shard

from losses import cross_entropy_loss
from model import Transformer


class Trainer:
    def __init__(self, cfg, dataloader):
        self.device = torch.device("cuda", dist.get_rank() % torch.cuda.device_count())
        self.model = Transformer(cfg.model).to(self.device)
        fully_shard(self.model)
        self.optimizer = torch.optim.AdamW(self.model.parameters(), lr=cfg.lr, weight_decay=0.1)
        self.loss_fn = cross_entropy_loss
        self.gradient_accumulation_steps = cfg.global_batch_size // (
            cfg.local_batch_size * dist.get_world_size()
        )
        self.max_norm = cfg.max_norm
        self.dataloader = dataloader

    def forward_backward_step(self, input_ids, labels):
        pred = self.model(input_ids)
        loss = self.loss_fn(pred, labels) / self.gradient_accumulation_steps  # expect: TCK118
        del pred
        loss.backward()
        return loss.detach()

    def train_step(self, data_iterator):
        self.optimizer.zero_grad()
        accumulated = []
        for _ in range(self.gradient_accumulation_steps):
            input_ids, labels = next(data_iterator)
            accumulated.append(
                self.forward_backward_step(input_ids.to(self.device), labels.to(self.device))
            )
        torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.max_norm)
        self.optimizer.step()
        return torch.sum(torch.stack(accumulated))

    def train(self, steps):
        data_iterator = iter(self.dataloader)
        for step in range(1, steps + 1):
            loss = self.train_step(data_iterator)
            if step % 10 == 0 and dist.get_rank() == 0:
                print(f"step {step} loss {loss.item():.4f}")
