import os

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset

from areal_utils.data import cycle_dataloader


class TinyLM(nn.Module):
    def __init__(self, vocab=32000, dim=256):
        super().__init__()
        self.emb = nn.Embedding(vocab, dim)
        self.block = nn.TransformerEncoderLayer(dim, 4, 4 * dim, batch_first=True)
        self.head = nn.Linear(dim, vocab)

    def forward(self, ids):
        return self.head(self.block(self.emb(ids)))


def main(max_steps=10_000, batch_size=8):
    dist.init_process_group("nccl")
    rank, world_size = dist.get_rank(), dist.get_world_size()
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)

    train_dataset = TensorDataset(torch.randint(0, 32000, (4096, 129)))
    train_dataloader = DataLoader(
        train_dataset,
        batch_size=batch_size,
        sampler=DistributedSampler(train_dataset, world_size, rank, shuffle=True, drop_last=False),
        collate_fn=lambda items: torch.stack([x[0] for x in items]),
    )

    model = DDP(TinyLM().cuda(), device_ids=[local_rank])
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)

    data_generator = cycle_dataloader(train_dataloader)
    for global_step in range(max_steps):
        tokens = next(data_generator).cuda()
        logits = model(tokens[:, :-1])
        loss = F.cross_entropy(logits.flatten(0, 1), tokens[:, 1:].flatten())
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if rank == 0 and global_step % 100 == 0:
            print(global_step, loss.item())
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
