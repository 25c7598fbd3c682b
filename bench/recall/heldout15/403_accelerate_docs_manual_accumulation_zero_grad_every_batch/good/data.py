import json

import torch
from torch.utils.data import Dataset


class JsonlTextDataset(Dataset):
    def __init__(self, rows, vocab):
        self.rows = rows
        self.vocab = vocab

    def __len__(self):
        return len(self.rows)

    def __getitem__(self, idx):
        row = self.rows[idx]
        ids = [self.vocab.get(tok, 1) for tok in row["text"].lower().split()] or [1]
        return torch.tensor(ids), row["label"]


def build_dataset(path):
    with open(path, encoding="utf-8") as f:
        rows = [json.loads(line) for line in f]
    vocab = {"<pad>": 0, "<unk>": 1}
    for row in rows:
        for tok in row["text"].lower().split():
            vocab.setdefault(tok, len(vocab))
    num_classes = max(row["label"] for row in rows) + 1
    return JsonlTextDataset(rows, vocab), len(vocab), num_classes


def collate_batch(batch):
    lengths = [len(ids) for ids, _ in batch]
    offsets = torch.tensor([0] + lengths[:-1]).cumsum(0)
    tokens = torch.cat([ids for ids, _ in batch])
    labels = torch.tensor([label for _, label in batch])
    return tokens, offsets, labels
