import json
import os

import torch
from torch.utils.data import Dataset


class PTB(Dataset):
    """Penn Treebank sentences, already tokenized to ids by a preprocessing step."""

    def __init__(self, data_dir, split, max_sequence_length):
        with open(os.path.join(data_dir, "ptb.vocab.json")) as f:
            vocab = json.load(f)
        self.w2i, self.i2w = vocab["w2i"], vocab["i2w"]
        with open(os.path.join(data_dir, "ptb.%s.json" % split)) as f:
            self.data = list(json.load(f).values())
        self.max_sequence_length = max_sequence_length

    @property
    def vocab_size(self):
        return len(self.w2i)

    @property
    def pad_idx(self):
        return self.w2i["<pad>"]

    def get_i2w(self):
        return self.i2w

    def __len__(self):
        return len(self.data)

    def __getitem__(self, idx):
        item = self.data[idx]
        return {
            "input": torch.tensor(item["input"], dtype=torch.long),
            "target": torch.tensor(item["target"], dtype=torch.long),
            "length": torch.tensor(item["length"], dtype=torch.long),
        }
