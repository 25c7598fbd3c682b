import argparse
import os

import torch
from torch.utils.data import DataLoader, Dataset, RandomSampler
from transformers import AutoModelForCausalLM, AutoTokenizer, get_linear_schedule_with_warmup


class TextBlocks(Dataset):
    def __init__(self, tokenizer, path, block_size=128):
        with open(path, encoding="utf-8") as f:
            ids = tokenizer.convert_tokens_to_ids(tokenizer.tokenize(f.read()))
        self.examples = [ids[i:i + block_size] for i in range(0, len(ids) - block_size + 1, block_size)]

    def __len__(self):
        return len(self.examples)

    def __getitem__(self, i):
        return torch.tensor(self.examples[i])


def train(args, dataset, model):
    loader = DataLoader(dataset, sampler=RandomSampler(dataset), batch_size=args.batch_size)
    t_total = len(loader) // args.gradient_accumulation_steps * args.epochs
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr, eps=1e-8)
    scheduler = get_linear_schedule_with_warmup(optimizer, args.warmup_steps, t_total)

    global_step = 0
    tr_loss = 0.0
    model.zero_grad()
    for _ in range(args.epochs):
        for step, batch in enumerate(loader):
            model.train()
            batch = batch.to(args.device)
            loss = model(batch, labels=batch).loss
            loss = loss / args.gradient_accumulation_steps
            loss.backward()
            tr_loss += loss.item()
            if (step + 1) % args.gradient_accumulation_steps == 0:
                torch.nn.utils.clip_grad_norm_(model.parameters(), args.max_grad_norm)
                optimizer.step()
                scheduler.step()
                model.zero_grad()
                global_step += 1
                if global_step % args.logging_steps == 0:
                    print(f"step {global_step}: lr {scheduler.get_last_lr()[0]:.2e} loss {tr_loss / global_step:.4f}")
    return global_step, tr_loss / max(global_step, 1)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--train_file", required=True)
    parser.add_argument("--model_name", default="gpt2")
    parser.add_argument("--output_dir", default="out")
    parser.add_argument("--batch_size", type=int, default=4)
    parser.add_argument("--gradient_accumulation_steps", type=int, default=8)
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--lr", type=float, default=5e-5)
    parser.add_argument("--warmup_steps", type=int, default=100)
    parser.add_argument("--max_grad_norm", type=float, default=1.0)
    parser.add_argument("--logging_steps", type=int, default=50)
    args = parser.parse_args()
    args.device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

    tokenizer = AutoTokenizer.from_pretrained(args.model_name)
    model = AutoModelForCausalLM.from_pretrained(args.model_name).to(args.device)
    dataset = TextBlocks(tokenizer, args.train_file)
    global_step, loss = train(args, dataset, model)
    print(f"global_step = {global_step}, average loss = {loss:.4f}")
    os.makedirs(args.output_dir, exist_ok=True)
    model.save_pretrained(args.output_dir)
    tokenizer.save_pretrained(args.output_dir)


if __name__ == "__main__":
    main()
