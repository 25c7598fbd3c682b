import argparse

import deepspeed
import torch
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler
from transformers import AutoModelForCausalLM, AutoTokenizer, default_data_collator

from data_utils import create_prompt_dataset


def parse_args():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model_name_or_path", default="facebook/opt-125m")
    parser.add_argument("--data_output_path", default="/tmp/data_files")
    parser.add_argument("--max_seq_len", type=int, default=512)
    parser.add_argument("--per_device_train_batch_size", type=int, default=8)
    parser.add_argument("--num_train_epochs", type=int, default=1)
    parser.add_argument("--seed", type=int, default=1234)
    parser.add_argument("--local_rank", type=int, default=-1)
    parser = deepspeed.add_config_arguments(parser)
    return parser.parse_args()


def main():
    args = parse_args()
    deepspeed.init_distributed()
    tokenizer = AutoTokenizer.from_pretrained(args.model_name_or_path)
    model = AutoModelForCausalLM.from_pretrained(args.model_name_or_path)

    corpora = {"local/sft": ["Human: hi\n\nAssistant: hello"] * 1000}
    train_dataset, eval_dataset = create_prompt_dataset(
        args.local_rank, corpora, args.data_output_path, args.seed, tokenizer, args.max_seq_len
    )
    sampler = DistributedSampler(train_dataset)
    loader = DataLoader(
        train_dataset, collate_fn=default_data_collator, sampler=sampler, batch_size=args.per_device_train_batch_size
    )

    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-5)
    engine, *_ = deepspeed.initialize(model=model, optimizer=optimizer, args=args)
    for epoch in range(args.num_train_epochs):
        sampler.set_epoch(epoch)
        engine.train()
        for batch in loader:
            batch = {k: v.to(engine.device) for k, v in batch.items()}
            loss = engine(**batch, use_cache=False).loss
            engine.backward(loss)
            engine.step()


if __name__ == "__main__":
    main()
