import os

import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP

from model import TransferrableModel


class Trainer:
    def __init__(self, local_rank):
        self.device = torch.device("cuda", local_rank)
        self.model = TransferrableModel().to(self.device)
        self.model.backbone = DDP(self.model.backbone, device_ids=[local_rank])
        self.model.adapter = DDP(self.model.adapter, device_ids=[local_rank])
        self.optimizer = torch.optim.SGD(self.model.parameters(), lr=0.01, momentum=0.9)

    def train_step(self, src_x, src_y, tgt_x):
        x = torch.cat([src_x, tgt_x])
        logits, feat = self.model.backbone(x)
        domain_logits = self.model.adapter(feat)
        n = src_x.size(0)
        cls_loss = F.cross_entropy(logits[:n], src_y)
        domain_y = torch.cat([torch.ones(n, device=self.device), torch.zeros(tgt_x.size(0), device=self.device)])
        adv_loss = F.binary_cross_entropy_with_logits(domain_logits, domain_y)
        loss = cls_loss + 0.1 * adv_loss

        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        return loss.detach()

    def fit(self, steps):
        for step in range(steps):
            src_x = torch.randn(16, 3, 32, 32, device=self.device)
            src_y = torch.randint(0, 10, (16,), device=self.device)
            tgt_x = torch.randn(16, 3, 32, 32, device=self.device)
            loss = self.train_step(src_x, src_y, tgt_x)
            if step % 50 == 0 and dist.get_rank() == 0:
                print(step, loss.item())


def main():
    dist.init_process_group("nccl")
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    Trainer(local_rank).fit(500)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
