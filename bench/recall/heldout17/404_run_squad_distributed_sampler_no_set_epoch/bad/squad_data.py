import json

import torch
from torch.utils.data import TensorDataset


def load_and_cache_examples(path, tokenizer, max_seq_length=384):
    with open(path) as f:
        records = json.load(f)
    input_ids, attention_masks, token_type_ids, starts, ends = [], [], [], [], []
    for rec in records:
        enc = tokenizer(
            rec["question"],
            rec["context"],
            max_length=max_seq_length,
            truncation="only_second",
            padding="max_length",
        )
        input_ids.append(enc["input_ids"])
        attention_masks.append(enc["attention_mask"])
        token_type_ids.append(enc.get("token_type_ids", [0] * max_seq_length))
        starts.append(rec["start_position"])
        ends.append(rec["end_position"])
    return TensorDataset(
        torch.tensor(input_ids),
        torch.tensor(attention_masks),
        torch.tensor(token_type_ids),
        torch.tensor(starts),
        torch.tensor(ends),
    )
