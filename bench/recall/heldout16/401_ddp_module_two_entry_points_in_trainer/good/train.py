import os

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel

from model import CrossLingualLM


class Trainer:
    def __init__(self, local_rank):
        self.device = torch.device("cuda", local_rank)
        model = CrossLingualLM().to(self.device)
        self.model = DistributedDataParallel(model, device_ids=[local_rank])
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=1e-4)

    def random_batch(self, batch=16, length=32):
        tokens = torch.randint(0, 1000, (batch, length), device=self.device)
        targets = torch.randint(0, 1000, (batch, length), device=self.device)
        return tokens, targets

    def mlm_step(self):
        tokens, targets = self.random_batch()
        loss = self.model(tokens, targets, mode="mlm")
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        return loss.item()

    def mt_step(self):
        src, tgt = self.random_batch()
        loss = self.model(src, tgt, mode="mt")
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        return loss.item()


def main():
    dist.init_process_group("nccl")
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    trainer = Trainer(local_rank)
    for step in range(1000):
        mlm = trainer.mlm_step()
        mt = trainer.mt_step()
        if step % 100 == 0 and dist.get_rank() == 0:
            print(f"step {step}: mlm {mlm:.3f} mt {mt:.3f}")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
