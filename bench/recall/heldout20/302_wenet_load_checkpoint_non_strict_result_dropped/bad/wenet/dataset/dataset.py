import json

import torch
from torch.utils.data import Dataset


class AsrDataset(Dataset):
    """Reads one utterance per line: {"feats": [[...], ...], "text": [ids]}."""

    def __init__(self, data_list):
        with open(data_list) as fin:
            self.items = [json.loads(line) for line in fin]

    def __len__(self):
        return len(self.items)

    def __getitem__(self, idx):
        item = self.items[idx]
        feats = torch.tensor(item["feats"], dtype=torch.float32)
        text = torch.tensor(item["text"], dtype=torch.long)
        return feats, text


def collate(batch):
    feats, texts = zip(*batch)
    feats_lengths = torch.tensor([f.size(0) for f in feats])
    text_lengths = torch.tensor([t.size(0) for t in texts])
    feats = torch.nn.utils.rnn.pad_sequence(feats, batch_first=True)
    texts = torch.nn.utils.rnn.pad_sequence(texts, batch_first=True)
    return feats, feats_lengths, texts, text_lengths
