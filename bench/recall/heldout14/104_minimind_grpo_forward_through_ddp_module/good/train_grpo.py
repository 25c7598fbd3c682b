import argparse
import os

import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset

from model import TinyCausalLM


def reward_fn(completions):
    # toy reward: prefer completions that end with token 2 (eos)
    return (completions[:, -1] == 2).float()


def per_token_logps(logits, ids):
    return torch.gather(F.log_softmax(logits, dim=-1), 2, ids.unsqueeze(-1)).squeeze(-1)


def grpo_train_epoch(model, ref_model, loader, optimizer, args, device):
    model_unwrapped = model.module if isinstance(model, DistributedDataParallel) else model
    for (prompts,) in loader:
        prompts = prompts.to(device).repeat_interleave(args.num_generations, dim=0)
        outputs = model_unwrapped.generate(prompts, max_new_tokens=args.max_gen_len)
        completion = outputs[:, prompts.size(1):]
        full_mask = torch.ones_like(outputs)

        with torch.autocast("cuda", dtype=torch.bfloat16):
            logits = model(outputs, attention_mask=full_mask)
        logps = per_token_logps(logits[:, prompts.size(1) - 1:-1].float(), completion)
        with torch.no_grad():
            ref_logits = ref_model(outputs, attention_mask=full_mask)
            ref_logps = per_token_logps(ref_logits[:, prompts.size(1) - 1:-1].float(), completion)

        rewards = reward_fn(completion).view(-1, args.num_generations)
        advantages = (rewards - rewards.mean(1, keepdim=True)) / (rewards.std(1, keepdim=True) + 1e-4)
        advantages = advantages.view(-1, 1)
        kl = torch.exp(ref_logps - logps) - (ref_logps - logps) - 1
        loss = -(torch.exp(logps - logps.detach()) * advantages - args.beta * kl).mean()

        optimizer.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--batch_size", type=int, default=4)
    parser.add_argument("--num_generations", type=int, default=4)
    parser.add_argument("--max_gen_len", type=int, default=32)
    parser.add_argument("--beta", type=float, default=0.02)
    parser.add_argument("--lr", type=float, default=1e-6)
    args = parser.parse_args()

    ddp = int(os.environ.get("RANK", -1)) != -1
    if ddp:
        dist.init_process_group(backend="nccl")
        local_rank = int(os.environ["LOCAL_RANK"])
        torch.cuda.set_device(local_rank)
        device = torch.device("cuda", local_rank)
    else:
        device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

    model = TinyCausalLM().to(device)
    ref_model = TinyCausalLM().to(device).eval()
    ref_model.load_state_dict(model.state_dict())
    ref_model.requires_grad_(False)

    prompts = TensorDataset(torch.randint(3, 6400, (256, 16)))
    sampler = DistributedSampler(prompts) if ddp else None
    loader = DataLoader(prompts, batch_size=args.batch_size, sampler=sampler, shuffle=sampler is None)

    if ddp:
        model = DistributedDataParallel(model, device_ids=[local_rank])
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr)

    for epoch in range(args.epochs):
        if sampler is not None:
            sampler.set_epoch(epoch)
        model.train()
        grpo_train_epoch(model, ref_model, loader, optimizer, args, device)
        if not ddp or dist.get_rank() == 0:
            state = model.module.state_dict() if ddp else model.state_dict()
            torch.save(state, f"grpo_epoch{epoch}.pth")

    if ddp:
        dist.destroy_process_group()


if __name__ == "__main__":
    main()
