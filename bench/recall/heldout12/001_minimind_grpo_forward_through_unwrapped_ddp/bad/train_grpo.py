import os

import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel

from model import TinyLM


def reward_fn(completions):
    return (completions % 7 == 0).float().mean(dim=1)


def grpo_step(model, optimizer, prompts, autocast_ctx, group=4):
    policy_unwrapped = model.module if isinstance(model, DistributedDataParallel) else model
    with torch.no_grad():
        outputs = policy_unwrapped.generate(prompts.repeat_interleave(group, 0))
    full_mask = torch.ones_like(outputs)
    rewards = reward_fn(outputs[:, prompts.size(1):])
    adv = (rewards - rewards.view(-1, group).mean(1).repeat_interleave(group)) / (rewards.std() + 1e-4)

    with autocast_ctx:
        logits = policy_unwrapped(outputs, attention_mask=full_mask)  # expect: TCK210
        logp = F.log_softmax(logits[:, :-1], -1).gather(-1, outputs[:, 1:, None]).squeeze(-1)
        loss = -(logp.mean(1) * adv).mean()

    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    return loss.item()


def main():
    dist.init_process_group("nccl")
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    device = torch.device("cuda", local_rank)

    model = TinyLM().to(device)
    model = DistributedDataParallel(model, device_ids=[local_rank])
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-5)
    autocast_ctx = torch.autocast("cuda", dtype=torch.bfloat16)

    for step in range(100):
        prompts = torch.randint(0, 512, (2, 16), device=device)
        loss = grpo_step(model, optimizer, prompts, autocast_ctx)
        if step % 10 == 0 and dist.get_rank() == 0:
            print(step, loss)

    dist.destroy_process_group()


if __name__ == "__main__":
    main()
