import argparse

import torch
from torch.utils.data import DataLoader
from transformers import AutoModelForCausalLM, AutoTokenizer, get_cosine_schedule_with_warmup

from sft_trainer import SFTTrainer
from strategy import Strategy


def collate(tokenizer, max_len):
    def fn(examples):
        prompts = [e["prompt"] for e in examples]
        texts = [e["prompt"] + e["response"] + tokenizer.eos_token for e in examples]
        enc = tokenizer(texts, max_length=max_len, padding=True, truncation=True, return_tensors="pt")
        prompt_lens = [len(tokenizer(p)["input_ids"]) for p in prompts]
        return prompt_lens, enc["input_ids"], enc["attention_mask"]

    return fn


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--pretrain", type=str, required=True)
    parser.add_argument("--eval_steps", type=int, default=200)
    parser.add_argument("--save_steps", type=int, default=1000)
    parser.add_argument("--logging_steps", type=int, default=10)
    parser.add_argument("--ckpt_path", type=str, default="./ckpt")
    args = parser.parse_args()

    tokenizer = AutoTokenizer.from_pretrained(args.pretrain)
    tokenizer.pad_token = tokenizer.pad_token or tokenizer.eos_token
    model = AutoModelForCausalLM.from_pretrained(args.pretrain).cuda()
    data = [{"prompt": "Q: 1+1? A:", "response": " 2"}] * 256
    train_loader = DataLoader(data, batch_size=8, shuffle=True, collate_fn=collate(tokenizer, 128))
    eval_loader = DataLoader(data[:32], batch_size=8, collate_fn=collate(tokenizer, 128))
    optim = torch.optim.AdamW(model.parameters(), lr=5e-6)
    scheduler = get_cosine_schedule_with_warmup(optim, 10, 2 * len(train_loader))
    trainer = SFTTrainer(model, Strategy(), optim, train_loader, eval_loader, scheduler, tokenizer)
    trainer.fit(args)


if __name__ == "__main__":
    main()
