import torch
import torch.distributed as dist
from torch.distributed.fsdp import fully_shard

from losses import IGNORE_INDEX, cross_entropy_loss
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

    def forward_backward_step(self, input_ids, labels, global_valid_tokens):
        pred = self.model(input_ids)
        # gradients are summed (not averaged) across ranks, so divide by the
        # labelled tokens of the whole window on all ranks
        loss = self.loss_fn(pred, labels) * dist.get_world_size() / global_valid_tokens
        del pred
        loss.backward()
        return loss.detach()

    def train_step(self, data_iterator):
        self.optimizer.zero_grad()
        microbatches = []
        local_valid_tokens = torch.tensor(0, dtype=torch.int64, device=self.device)
        for _ in range(self.gradient_accumulation_steps):
            input_ids, labels = next(data_iterator)
            local_valid_tokens += (labels != IGNORE_INDEX).sum().to(self.device)
            microbatches.append((input_ids, labels))
        global_valid_tokens = local_valid_tokens.clone()
        dist.all_reduce(global_valid_tokens)
        accumulated = []
        for input_ids, labels in microbatches:
            accumulated.append(
                self.forward_backward_step(
                    input_ids.to(self.device), labels.to(self.device), global_valid_tokens
                )
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
