"""Fine-tune BERT for CoNLL-2003 named-entity recognition."""
from __future__ import absolute_import, division, print_function

import argparse
import json
import logging
import os
import random

import numpy as np
import torch
from pytorch_transformers import (AdamW, BertConfig, BertForTokenClassification,
                                  BertTokenizer, WarmupLinearSchedule)
from torch import nn
from torch.utils.data import DataLoader, RandomSampler, TensorDataset
from torch.utils.data.distributed import DistributedSampler
from tqdm import tqdm, trange

logger = logging.getLogger(__name__)


class Ner(BertForTokenClassification):
    """Token classifier that scores only the first word piece of every word."""

    def forward(self, input_ids, token_type_ids=None, attention_mask=None, labels=None,
                valid_ids=None, attention_mask_label=None):
        hidden = self.bert(input_ids, token_type_ids, attention_mask, head_mask=None)[0]
        batch_size, max_len, width = hidden.shape
        first_pieces = torch.zeros(batch_size, max_len, width, dtype=torch.float32, device=hidden.device)
        for b in range(batch_size):
            kept = -1
            for t in range(max_len):
                if valid_ids[b][t].item() == 1:
                    kept += 1
                    first_pieces[b][kept] = hidden[b][t]
        logits = self.classifier(self.dropout(first_pieces))
        if labels is None:
            return logits
        criterion = nn.CrossEntropyLoss(ignore_index=0)
        return criterion(logits.view(-1, self.num_labels), labels.view(-1))


class Features(object):
    def __init__(self, input_ids, input_mask, segment_ids, label_ids, valid_ids, label_mask):
        self.input_ids = input_ids
        self.input_mask = input_mask
        self.segment_ids = segment_ids
        self.label_ids = label_ids
        self.valid_ids = valid_ids
        self.label_mask = label_mask


def read_conll(path):
    sentences, words, tags = [], [], []
    with open(path) as handle:
        for line in handle:
            if not line.strip() or line.startswith("-DOCSTART"):
                if words:
                    sentences.append((words, tags))
                    words, tags = [], []
                continue
            parts = line.split()
            words.append(parts[0])
            tags.append(parts[-1])
    if words:
        sentences.append((words, tags))
    return sentences


def to_features(sentences, label_list, max_seq_length, tokenizer):
    label_map = {label: i for i, label in enumerate(label_list, 1)}
    features = []
    for words, tags in sentences:
        tokens, labels, valid = ["[CLS]"], [label_map["[CLS]"]], [1]
        for word, tag in zip(words, tags):
            pieces = tokenizer.tokenize(word)
            for k, piece in enumerate(pieces):
                tokens.append(piece)
                valid.append(1 if k == 0 else 0)
                if k == 0:
                    labels.append(label_map[tag])
        tokens = tokens[:max_seq_length - 1] + ["[SEP]"]
        valid = valid[:max_seq_length - 1] + [1]
        labels = labels[:max_seq_length - 1] + [label_map["[SEP]"]]
        ids = tokenizer.convert_tokens_to_ids(tokens)
        pad = max_seq_length - len(ids)
        label_pad = max_seq_length - len(labels)
        features.append(Features(ids + [0] * pad, [1] * len(ids) + [0] * pad, [0] * max_seq_length,
                                 labels + [0] * label_pad, valid + [1] * pad,
                                 [1] * len(labels) + [0] * label_pad))
    return features


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--data_dir", required=True)
    parser.add_argument("--bert_model", default="bert-base-cased")
    parser.add_argument("--output_dir", required=True)
    parser.add_argument("--max_seq_length", type=int, default=128)
    parser.add_argument("--train_batch_size", type=int, default=32)
    parser.add_argument("--learning_rate", type=float, default=5e-5)
    parser.add_argument("--num_train_epochs", type=float, default=3.0)
    parser.add_argument("--warmup_proportion", type=float, default=0.1)
    parser.add_argument("--weight_decay", type=float, default=0.01)
    parser.add_argument("--adam_epsilon", type=float, default=1e-8)
    parser.add_argument("--max_grad_norm", type=float, default=1.0)
    parser.add_argument("--gradient_accumulation_steps", type=int, default=1)
    parser.add_argument("--local_rank", type=int, default=-1)
    parser.add_argument("--fp16", action="store_true")
    parser.add_argument("--fp16_opt_level", default="O1")
    parser.add_argument("--seed", type=int, default=42)
    args = parser.parse_args()

    if args.local_rank == -1:
        device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        n_gpu = torch.cuda.device_count()
    else:
        torch.cuda.set_device(args.local_rank)
        device = torch.device("cuda", args.local_rank)
        n_gpu = 1
        torch.distributed.init_process_group(backend="nccl")

    args.train_batch_size = args.train_batch_size // args.gradient_accumulation_steps
    random.seed(args.seed)
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)
    os.makedirs(args.output_dir, exist_ok=True)

    label_list = ["O", "B-MISC", "I-MISC", "B-PER", "I-PER", "B-ORG", "I-ORG", "B-LOC", "I-LOC",
                  "[CLS]", "[SEP]"]
    num_labels = len(label_list) + 1
    tokenizer = BertTokenizer.from_pretrained(args.bert_model, do_lower_case=False)

    train_sentences = read_conll(os.path.join(args.data_dir, "train.txt"))
    num_train_optimization_steps = int(
        len(train_sentences) / args.train_batch_size / args.gradient_accumulation_steps) * args.num_train_epochs
    if args.local_rank != -1:
        num_train_optimization_steps = num_train_optimization_steps // torch.distributed.get_world_size()

    config = BertConfig.from_pretrained(args.bert_model, num_labels=num_labels, finetuning_task="ner")
    model = Ner.from_pretrained(args.bert_model, from_tf=False, config=config)
    model.to(device)

    named = list(model.named_parameters())
    no_decay = ["bias", "LayerNorm.weight"]
    grouped = [
        {"params": [p for n, p in named if not any(nd in n for nd in no_decay)], "weight_decay": args.weight_decay},
        {"params": [p for n, p in named if any(nd in n for nd in no_decay)], "weight_decay": 0.0},
    ]
    warmup_steps = int(args.warmup_proportion * num_train_optimization_steps)
    optimizer = AdamW(grouped, lr=args.learning_rate, eps=args.adam_epsilon)
    scheduler = WarmupLinearSchedule(optimizer, warmup_steps=warmup_steps, t_total=num_train_optimization_steps)
    if args.fp16:
        from apex import amp
        model, optimizer = amp.initialize(model, optimizer, opt_level=args.fp16_opt_level)

    if n_gpu > 1:
        model = torch.nn.DataParallel(model)
    if args.local_rank != -1:
        model = torch.nn.parallel.DistributedDataParallel(model, device_ids=[args.local_rank],
                                                          output_device=args.local_rank,
                                                          find_unused_parameters=True)

    features = to_features(train_sentences, label_list, args.max_seq_length, tokenizer)
    train_data = TensorDataset(*[torch.tensor([getattr(f, name) for f in features], dtype=torch.long)
                                 for name in ("input_ids", "input_mask", "segment_ids", "label_ids",
                                              "valid_ids", "label_mask")])
    sampler = RandomSampler(train_data) if args.local_rank == -1 else DistributedSampler(train_data)
    train_dataloader = DataLoader(train_data, sampler=sampler, batch_size=args.train_batch_size)

    global_step = 0
    model.train()
    for _ in trange(int(args.num_train_epochs), desc="Epoch"):
        tr_loss = 0
        for step, batch in enumerate(tqdm(train_dataloader, desc="Iteration")):
            batch = tuple(t.to(device) for t in batch)
            input_ids, input_mask, segment_ids, label_ids, valid_ids, l_mask = batch
            loss = model(input_ids, segment_ids, input_mask, label_ids, valid_ids, l_mask)
            if n_gpu > 1:
                loss = loss.mean()
            if args.gradient_accumulation_steps > 1:
                loss = loss / args.gradient_accumulation_steps

            if args.fp16:
                with amp.scale_loss(loss, optimizer) as scaled_loss:
                    scaled_loss.backward()
                torch.nn.utils.clip_grad_norm_(amp.master_params(optimizer), args.max_grad_norm)
            else:
                loss.backward()
                torch.nn.utils.clip_grad_norm_(model.parameters(), args.max_grad_norm)

            tr_loss += loss.item()
            if (step + 1) % args.gradient_accumulation_steps == 0:
                scheduler.step()  # expect: TCK104
                optimizer.step()
                model.zero_grad()
                global_step += 1

    to_save = model.module if hasattr(model, "module") else model
    to_save.save_pretrained(args.output_dir)
    tokenizer.save_pretrained(args.output_dir)
    with open(os.path.join(args.output_dir, "model_config.json"), "w") as handle:
        json.dump({"bert_model": args.bert_model, "max_seq_length": args.max_seq_length,
                   "num_labels": num_labels, "label_map": {i: l for i, l in enumerate(label_list, 1)}}, handle)


if __name__ == "__main__":
    main()
