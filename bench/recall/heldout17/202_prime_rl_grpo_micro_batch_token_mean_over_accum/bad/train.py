import argparse

import torch
from transformers import AutoModelForCausalLM

from loss import grpo_loss


def load_micro_batches(path):
    # list of dicts: input_ids, loss_mask, advantages, logprobs (B x T tensors), total_tokens (int)
    return torch.load(path, weights_only=True)


def train(args):
    model = AutoModelForCausalLM.from_pretrained(args.model).cuda()
    model.train()
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr)

    for step in range(args.max_steps):
        micro_batches = load_micro_batches(f"{args.rollout_dir}/step_{step}.pt")
        num_micro_batches = len(micro_batches)
        for micro_batch in micro_batches:
            input_ids = micro_batch["input_ids"].cuda()
            loss_mask = micro_batch["loss_mask"].cuda()
            advantages = micro_batch["advantages"].cuda()
            logprobs = micro_batch["logprobs"].cuda()
            max_tokens = int(micro_batch["total_tokens"])

            logits = model(input_ids=input_ids).logits
            loss, clip_ratio = grpo_loss(
                logits, input_ids, advantages, logprobs, loss_mask, args.temperature, max_tokens
            )
            loss = loss / num_micro_batches  # expect: TCK118
            loss.backward()

        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        optimizer.zero_grad()


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", default="Qwen/Qwen2.5-0.5B")
    parser.add_argument("--rollout_dir", default="rollouts")
    parser.add_argument("--lr", type=float, default=1e-6)
    parser.add_argument("--temperature", type=float, default=1.0)
    parser.add_argument("--max_steps", type=int, default=100)
    train(parser.parse_args())
