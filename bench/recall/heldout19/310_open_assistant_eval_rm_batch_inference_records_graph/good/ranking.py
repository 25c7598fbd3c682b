import numpy as np
import torch


class RankingDataCollator:
    """Flattens groups of ranked replies into one padded batch, remembering group boundaries."""

    def __init__(self, tokenizer, max_length=512):
        self.tokenizer = tokenizer
        self.max_length = max_length

    def __call__(self, examples):
        flat, cu_lens = [], [0]
        for prompt, replies in examples:
            flat.extend(prompt + reply for reply in replies)
            cu_lens.append(len(flat))
        batch = self.tokenizer(flat, padding=True, truncation=True, max_length=self.max_length, return_tensors="pt")
        return batch, cu_lens


class RewardMetrics:
    def __init__(self, metrics):
        self.metrics = metrics

    def __call__(self, logits, cu_lens):
        results = {}
        correct = 0
        for s, e in zip(cu_lens[:-1], cu_lens[1:]):
            correct += int(np.argmax(logits[s:e]) == 0)
        if "accuracy" in self.metrics:
            results["accuracy"] = correct / (len(cu_lens) - 1)
        return results


class ToyRankingDataset(torch.utils.data.Dataset):
    def __init__(self, n=64):
        self.items = [(f"Question {i}: ", [" a helpful answer", " an unhelpful answer"]) for i in range(n)]

    def __len__(self):
        return len(self.items)

    def __getitem__(self, idx):
        return self.items[idx]
