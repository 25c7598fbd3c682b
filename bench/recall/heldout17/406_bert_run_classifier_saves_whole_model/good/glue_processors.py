import csv

import torch
from torch.utils.data import TensorDataset


class MrpcProcessor:
    labels = ["0", "1"]

    def get_train_examples(self, path):
        with open(path, encoding="utf-8") as f:
            rows = list(csv.reader(f, delimiter="\t", quotechar=None))[1:]
        return [(row[3], row[4], row[0]) for row in rows]


def convert_examples_to_dataset(examples, label_list, tokenizer, max_seq_length=128):
    label_map = {label: i for i, label in enumerate(label_list)}
    ids, masks, segments, labels = [], [], [], []
    for text_a, text_b, label in examples:
        enc = tokenizer(text_a, text_b, max_length=max_seq_length, truncation=True, padding="max_length")
        ids.append(enc["input_ids"])
        masks.append(enc["attention_mask"])
        segments.append(enc["token_type_ids"])
        labels.append(label_map[label])
    return TensorDataset(torch.tensor(ids), torch.tensor(masks), torch.tensor(segments), torch.tensor(labels))
