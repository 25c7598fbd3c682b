import os

import torch
import torch.distributed as dist
from torch.distributed.fsdp import FullyShardedDataParallel as FSDP
from torch.nn.parallel import DistributedDataParallel as DDP

from model import gpt_init
from data import get_batch


def train(args):
    dist.init_process_group(backend="nccl")
    local_rank = int(os.environ["LOCAL_RANK"])
    device = f"cuda:{local_rank}"
    torch.cuda.set_device(device)
    use_fsdp = args.use_fsdp == "True"

    model = gpt_init(args.vocab_size, args=args)
    model = model.to(device)
    if use_fsdp:
        model = FSDP(model, device_id=local_rank)
    else:
        model = DDP(model, device_ids=[local_rank])
    optimizer = torch.optim.AdamW(model.parameters(), weight_decay=args.weight_decay, lr=args.learning_rate, betas=(args.beta1, args.beta2))

    for iter_num in range(args.max_iters):
        for micro_step in range(args.gradient_accumulation_steps):
            x, y = get_batch("train", args.batch_size, args.block_size, device)
            logits, loss = model(x, y)
            (loss / args.gradient_accumulation_steps).backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), args.grad_clip)
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        if iter_num % args.log_interval == 0 and dist.get_rank() == 0:
            print(f"iter {iter_num}: loss {loss.item():.4f}")
