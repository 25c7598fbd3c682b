import hashlib
import os

import numpy as np
import torch
from torch.utils.data import ConcatDataset, Dataset, Subset


class PromptDataset(Dataset):
    def __init__(self, chosen, attention):
        self.chosen = chosen
        self.attention = attention

    def __len__(self):
        return len(self.chosen)

    def __getitem__(self, idx):
        return {"input_ids": self.chosen[idx], "attention_mask": self.attention[idx], "labels": self.chosen[idx]}


def tokenize_split(tokenizer, texts, max_seq_len):
    enc = tokenizer(texts, max_length=max_seq_len, padding="max_length", truncation=True, return_tensors="pt")
    return PromptDataset(enc["input_ids"], enc["attention_mask"])


def shuffled(dataset, seed):
    idx = np.random.RandomState(seed=seed).permutation(len(dataset))
    return Subset(dataset, idx.tolist())


def create_prompt_dataset(local_rank, corpora, output_path, seed, tokenizer, max_seq_len, reload=False):
    """Rank 0 tokenizes and caches the datasets; every rank then loads the cache."""
    os.makedirs(output_path, exist_ok=True)
    key = hashlib.sha256(f"{sorted(corpora)}_{seed}_{max_seq_len}".encode()).hexdigest()
    train_fname = f"{output_path}/traindata_{key}.pt"
    eval_fname = f"{output_path}/evaldata_{key}.pt"

    cache_found = os.path.isfile(train_fname) and os.path.isfile(eval_fname)
    buf_create_cache = torch.tensor([not cache_found], dtype=torch.uint8, device="cuda")
    torch.distributed.all_reduce(buf_create_cache)

    if local_rank <= 0 and (buf_create_cache.item() != 0 or reload):
        train_parts, eval_parts = [], []
        for name, texts in corpora.items():
            cut = int(0.9 * len(texts))
            train_parts.append(tokenize_split(tokenizer, texts[:cut], max_seq_len))
            eval_parts.append(tokenize_split(tokenizer, texts[cut:], max_seq_len))
        train_dataset = shuffled(ConcatDataset(train_parts), seed)
        eval_dataset = shuffled(ConcatDataset(eval_parts), seed)
        torch.save(train_dataset, train_fname)
        torch.save(eval_dataset, eval_fname)
    torch.distributed.barrier()
    train_dataset = torch.load(train_fname, weights_only=False)
    eval_dataset = torch.load(eval_fname, weights_only=False)
    return train_dataset, eval_dataset
