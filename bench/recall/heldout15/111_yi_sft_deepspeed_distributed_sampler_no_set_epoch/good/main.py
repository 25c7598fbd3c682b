import argparse
import math

import deepspeed
import torch
from torch.utils.data import DataLoader, RandomSampler, SequentialSampler
from torch.utils.data.distributed import DistributedSampler
from transformers import AutoModelForCausalLM, AutoTokenizer, default_data_collator, get_scheduler

from data_utils import PromptDataset, to_device


def parse_args():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model_name_or_path", default="01-ai/Yi-6B")
    parser.add_argument("--train_path", default="data/train.jsonl")
    parser.add_argument("--eval_path", default="data/eval.jsonl")
    parser.add_argument("--per_device_train_batch_size", type=int, default=2)
    parser.add_argument("--per_device_eval_batch_size", type=int, default=2)
    parser.add_argument("--max_seq_len", type=int, default=2048)
    parser.add_argument("--learning_rate", type=float, default=2e-5)
    parser.add_argument("--num_train_epochs", type=int, default=4)
    parser.add_argument("--gradient_accumulation_steps", type=int, default=1)
    parser.add_argument("--local_rank", type=int, default=-1)
    parser = deepspeed.add_config_arguments(parser)
    return parser.parse_args()


def main():
    args = parse_args()
    if args.local_rank == -1:
        device = torch.device("cuda")
    else:
        torch.cuda.set_device(args.local_rank)
        device = torch.device("cuda", args.local_rank)
        deepspeed.init_distributed()

    ds_config = {
        "train_micro_batch_size_per_gpu": args.per_device_train_batch_size,
        "gradient_accumulation_steps": args.gradient_accumulation_steps,
        "bf16": {"enabled": True},
        "zero_optimization": {"stage": 2},
    }
    tokenizer = AutoTokenizer.from_pretrained(args.model_name_or_path)
    tokenizer.pad_token = tokenizer.eos_token
    model = AutoModelForCausalLM.from_pretrained(args.model_name_or_path)

    train_dataset = PromptDataset(args.train_path, tokenizer, args.max_seq_len)
    eval_dataset = PromptDataset(args.eval_path, tokenizer, args.max_seq_len)
    if args.local_rank == -1:
        train_sampler = RandomSampler(train_dataset)
        eval_sampler = SequentialSampler(eval_dataset)
    else:
        train_sampler = DistributedSampler(train_dataset)
        eval_sampler = DistributedSampler(eval_dataset)
    train_dataloader = DataLoader(
        train_dataset, collate_fn=default_data_collator, sampler=train_sampler, batch_size=args.per_device_train_batch_size
    )
    eval_dataloader = DataLoader(
        eval_dataset, collate_fn=default_data_collator, sampler=eval_sampler, batch_size=args.per_device_eval_batch_size
    )

    def evaluation(model, eval_dataloader):
        model.eval()
        losses = 0.0
        for step, batch in enumerate(eval_dataloader):
            batch = to_device(batch, device)
            with torch.no_grad():
                losses += model(**batch).loss.float().item()
        return losses / (step + 1)

    optimizer = torch.optim.AdamW(model.parameters(), lr=args.learning_rate, betas=(0.9, 0.95))
    num_update_steps_per_epoch = math.ceil(len(train_dataloader) / args.gradient_accumulation_steps)
    lr_scheduler = get_scheduler(
        "cosine", optimizer=optimizer, num_warmup_steps=0,
        num_training_steps=args.num_train_epochs * num_update_steps_per_epoch,
    )
    model, optimizer, _, lr_scheduler = deepspeed.initialize(
        model=model, optimizer=optimizer, args=args, config=ds_config, lr_scheduler=lr_scheduler
    )

    for epoch in range(args.num_train_epochs):
        if args.local_rank != -1:
            train_sampler.set_epoch(epoch)
        model.train()
        for step, batch in enumerate(train_dataloader):
            batch = to_device(batch, device)
            loss = model(**batch, use_cache=False).loss
            model.backward(loss)
            model.step()
        eval_loss = evaluation(model, eval_dataloader)
        if torch.distributed.get_rank() == 0:
            print(f"epoch {epoch + 1}: eval loss {eval_loss:.4f} ppl {math.exp(eval_loss):.2f}")


if __name__ == "__main__":
    main()
