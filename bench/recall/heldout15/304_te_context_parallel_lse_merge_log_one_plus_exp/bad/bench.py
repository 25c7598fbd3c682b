import os

import torch
import torch.distributed as dist

from cp_attention import RingAttention


def main():
    dist.init_process_group("nccl")
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    torch.manual_seed(1234 + dist.get_rank())
    batch, heads, chunk, dim = 2, 16, 1024, 128
    q = torch.randn(batch, heads, chunk, dim, device="cuda", dtype=torch.bfloat16)
    k = torch.randn_like(q)
    v = torch.randn_like(q)
    with torch.no_grad():
        out = RingAttention.apply(q, k, v, dist.group.WORLD)
    if dist.get_rank() == 0:
        print("output", tuple(out.shape), out.float().abs().mean().item())
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
