import json

import torch
from torch.utils.data import TensorDataset


class SwagProcessor:
    """Reads SWAG-style examples: a context and four candidate endings, one correct."""

    def get_train_examples(self, path):
        with open(path) as f:
            return [json.loads(line) for line in f]


def convert_examples_to_dataset(examples, tokenizer, max_length=128):
    all_ids, all_masks, all_types, labels = [], [], [], []
    for ex in examples:
        ids, masks, types = [], [], []
        for ending in ex["endings"]:
            enc = tokenizer(ex["context"], ending, max_length=max_length, truncation=True, padding="max_length")
            ids.append(enc["input_ids"])
            masks.append(enc["attention_mask"])
            types.append(enc.get("token_type_ids", [0] * max_length))
        all_ids.append(ids)
        all_masks.append(masks)
        all_types.append(types)
        labels.append(ex["label"])
    return TensorDataset(torch.tensor(all_ids), torch.tensor(all_masks), torch.tensor(all_types), torch.tensor(labels))
