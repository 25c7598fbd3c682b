import argparse
import os

import torch
import torch.distributed as dist
from torch.distributed.fsdp import FullyShardedDataParallel as FSDP
from torch.distributed.fsdp import StateDictType

from ckpt_utils import load_fsdp_model, load_fsdp_optimizer, load_shard


class Block(torch.nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.norm = torch.nn.LayerNorm(dim)
        self.ff = torch.nn.Sequential(torch.nn.Linear(dim, 4 * dim), torch.nn.GELU(), torch.nn.Linear(4 * dim, dim))

    def forward(self, x):
        return x + self.ff(self.norm(x))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--resume_dir", required=True)
    parser.add_argument("--init_weights", default=None)
    parser.add_argument("--local_state", action="store_true")
    args = parser.parse_args()

    dist.init_process_group("nccl")
    rank = dist.get_rank()
    torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))

    model = torch.nn.Sequential(*[Block(1024) for _ in range(12)])
    if args.init_weights:
        model.load_state_dict(load_shard(args.init_weights))
    model = FSDP(model, device_id=torch.cuda.current_device())
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)

    kind = StateDictType.LOCAL_STATE_DICT if args.local_state else StateDictType.FULL_STATE_DICT
    load_fsdp_model(kind, model, args.resume_dir, rank)
    load_fsdp_optimizer(kind, optimizer, model, args.resume_dir)

    for step in range(100):
        x = torch.randn(8, 128, 1024, device="cuda")
        loss = model(x).pow(2).mean()
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
