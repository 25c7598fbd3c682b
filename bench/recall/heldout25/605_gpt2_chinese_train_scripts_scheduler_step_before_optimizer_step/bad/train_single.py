import argparse
import json
import os
import random
from datetime import datetime

import numpy as np
import pytorch_transformers
import torch
from torch.nn import DataParallel
from tqdm import tqdm


def build_files(raw_data_path, tokenized_data_path, full_tokenizer, num_pieces):
    """Use this script when the training text is one continuous corpus, not separate articles."""
    os.makedirs(tokenized_data_path, exist_ok=True)
    with open(raw_data_path, "r", encoding="utf8") as f:
        lines = [line.replace("\n", " [SEP] ") for line in json.load(f)]
    single = "".join(lines)
    len_single = len(single)
    for i in tqdm(range(num_pieces)):
        piece = single[len_single // num_pieces * i: len_single // num_pieces * (i + 1)]
        single_ids = full_tokenizer.convert_tokens_to_ids(full_tokenizer.tokenize(piece))
        with open(os.path.join(tokenized_data_path, f"tokenized_train_{i}.txt"), "w") as f:
            f.write(" ".join(str(t) for t in single_ids))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--device", default="0,1,2,3", type=str)
    parser.add_argument("--model_config", default="config/model_config_small.json", type=str)
    parser.add_argument("--tokenizer_path", default="cache/vocab_small.txt", type=str)
    parser.add_argument("--raw_data_path", default="data/train.json", type=str)
    parser.add_argument("--tokenized_data_path", default="data/tokenized/", type=str)
    parser.add_argument("--raw", action="store_true")
    parser.add_argument("--epochs", default=5, type=int)
    parser.add_argument("--batch_size", default=8, type=int)
    parser.add_argument("--lr", default=1.5e-4, type=float)
    parser.add_argument("--warmup_steps", default=2000, type=int)
    parser.add_argument("--log_step", default=1, type=int)
    parser.add_argument("--stride", default=768, type=int)
    parser.add_argument("--gradient_accumulation", default=1, type=int)
    parser.add_argument("--fp16", action="store_true")
    parser.add_argument("--fp16_opt_level", default="O1", type=str)
    parser.add_argument("--max_grad_norm", default=1.0, type=float)
    parser.add_argument("--num_pieces", default=100, type=int)
    parser.add_argument("--output_dir", default="model/", type=str)
    parser.add_argument("--pretrained_model", default="", type=str)
    args = parser.parse_args()

    os.environ["CUDA_VISIBLE_DEVICES"] = args.device
    model_config = pytorch_transformers.modeling_gpt2.GPT2Config.from_json_file(args.model_config)
    n_ctx = model_config.n_ctx
    full_tokenizer = pytorch_transformers.BertTokenizer(vocab_file=args.tokenizer_path)
    full_tokenizer.max_len = 999999
    device = "cuda" if torch.cuda.is_available() else "cpu"

    if args.raw:
        build_files(args.raw_data_path, args.tokenized_data_path, full_tokenizer, args.num_pieces)

    if not args.pretrained_model:
        model = pytorch_transformers.modeling_gpt2.GPT2LMHeadModel(config=model_config)
    else:
        model = pytorch_transformers.modeling_gpt2.GPT2LMHeadModel.from_pretrained(args.pretrained_model)
    model.train()
    model.to(device)

    full_len = 0
    for i in tqdm(range(args.num_pieces)):
        with open(os.path.join(args.tokenized_data_path, f"tokenized_train_{i}.txt")) as f:
            full_len += len(f.read().strip().split())
    total_steps = int(full_len / args.stride * args.epochs / args.batch_size / args.gradient_accumulation)

    optimizer = pytorch_transformers.AdamW(model.parameters(), lr=args.lr, correct_bias=True)
    scheduler = pytorch_transformers.WarmupLinearSchedule(optimizer, warmup_steps=args.warmup_steps,
                                                          t_total=total_steps)
    if args.fp16:
        from apex import amp

        model, optimizer = amp.initialize(model, optimizer, opt_level=args.fp16_opt_level)

    multi_gpu = False
    if torch.cuda.device_count() > 1:
        model = DataParallel(model)
        multi_gpu = True

    for epoch in range(args.epochs):
        now = datetime.now()
        x = np.linspace(0, args.num_pieces - 1, args.num_pieces, dtype=np.int32)
        random.shuffle(x)
        piece_num = 0
        for i in x:
            running_loss = 0
            with open(os.path.join(args.tokenized_data_path, f"tokenized_train_{i}.txt")) as f:
                tokens = [int(token) for token in f.read().strip().split()]
            samples = []
            start_point = 0
            while start_point < len(tokens) - n_ctx:
                samples.append(tokens[start_point: start_point + n_ctx])
                start_point += args.stride
            random.shuffle(samples)
            for step in range(len(samples) // args.batch_size):  # drop last
                batch = samples[step * args.batch_size: (step + 1) * args.batch_size]
                batch_inputs = torch.tensor(batch).long().to(device)

                outputs = model.forward(input_ids=batch_inputs, labels=batch_inputs)  # expect: TCK105
                loss, logits = outputs[:2]
                if multi_gpu:
                    loss = loss.mean()
                if args.gradient_accumulation > 1:
                    loss = loss / args.gradient_accumulation

                if args.fp16:
                    with amp.scale_loss(loss, optimizer) as scaled_loss:
                        scaled_loss.backward()
                        torch.nn.utils.clip_grad_norm_(amp.master_params(optimizer), args.max_grad_norm)
                else:
                    loss.backward()
                    torch.nn.utils.clip_grad_norm_(model.parameters(), args.max_grad_norm)

                # optimizer step
                if (step + 1) % args.gradient_accumulation == 0:
                    running_loss += loss.item()
                    scheduler.step()  # expect: TCK104
                    optimizer.step()
                    optimizer.zero_grad()
                if (step + 1) % args.log_step == 0:
                    print(f"now time: {datetime.now():%H:%M}. Step {(step + 1) // args.gradient_accumulation} "
                          f"of piece {piece_num} of epoch {epoch + 1}, "
                          f"loss {running_loss * args.gradient_accumulation / args.log_step}")
                    running_loss = 0
            piece_num += 1

        out = os.path.join(args.output_dir, f"model_epoch{epoch + 1}")
        os.makedirs(out, exist_ok=True)
        model_to_save = model.module if hasattr(model, "module") else model
        model_to_save.save_pretrained(out)
        print(f"time for one epoch: {datetime.now() - now}")

    out = os.path.join(args.output_dir, "final_model")
    os.makedirs(out, exist_ok=True)
    model_to_save = model.module if hasattr(model, "module") else model
    model_to_save.save_pretrained(out)


if __name__ == "__main__":
    main()
