import json

import torch
from torch.utils.data import Dataset


class PromptDataset(Dataset):
    """Tokenised chat samples for supervised fine-tuning."""

    def __init__(self, path, tokenizer, max_seq_len):
        self.samples = []
        with open(path) as f:
            for line in f:
                record = json.loads(line)
                text = record["prompt"] + record["chosen"] + "<|endoftext|>"
                ids = tokenizer(text, max_length=max_seq_len, padding="max_length", truncation=True, return_tensors="pt")
                self.samples.append(
                    {
                        "input_ids": ids["input_ids"][0],
                        "attention_mask": ids["attention_mask"][0],
                        "labels": ids["input_ids"][0].clone(),
                    }
                )

    def __len__(self):
        return len(self.samples)

    def __getitem__(self, idx):
        return self.samples[idx]


def to_device(batch, device):
    return {k: v.to(device) if isinstance(v, torch.Tensor) else v for k, v in batch.items()}
