import random

import torch
from torch.utils.data import Dataset


class BERTDataset(Dataset):
    """Sentence pairs from a one-sentence-per-line corpus, masked for the MLM and next-sentence tasks."""

    def __init__(self, corpus_path, tokenizer, seq_len):
        self.tokenizer = tokenizer
        self.seq_len = seq_len
        with open(corpus_path, encoding="utf-8") as f:
            self.lines = [line.strip() for line in f if line.strip()]

    def __len__(self):
        return len(self.lines) - 1

    def _mask(self, tokens):
        labels = []
        for i, token in enumerate(tokens):
            if random.random() < 0.15:
                labels.append(self.tokenizer.vocab.get(token, self.tokenizer.vocab["[UNK]"]))
                tokens[i] = "[MASK]"
            else:
                labels.append(-1)
        return tokens, labels

    def __getitem__(self, idx):
        first = self.lines[idx]
        is_next = random.random() < 0.5
        second = self.lines[idx + 1] if is_next else random.choice(self.lines)
        a, la = self._mask(self.tokenizer.tokenize(first)[: self.seq_len // 2 - 2])
        b, lb = self._mask(self.tokenizer.tokenize(second)[: self.seq_len // 2 - 1])
        tokens = ["[CLS]"] + a + ["[SEP]"] + b + ["[SEP]"]
        labels = [-1] + la + [-1] + lb + [-1]
        segment = [0] * (len(a) + 2) + [1] * (len(b) + 1)
        ids = self.tokenizer.convert_tokens_to_ids(tokens)
        mask = [1] * len(ids)
        pad = self.seq_len - len(ids)
        ids += [0] * pad
        mask += [0] * pad
        segment += [0] * pad
        labels += [-1] * pad
        return (torch.tensor(ids), torch.tensor(mask), torch.tensor(segment),
                torch.tensor(labels), torch.tensor(int(is_next)))
