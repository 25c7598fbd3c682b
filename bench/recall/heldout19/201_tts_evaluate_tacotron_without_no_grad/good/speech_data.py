import os

import numpy as np
import torch
from torch.utils.data import Dataset


def masked_l1(pred, target, lengths):
    mask = (torch.arange(target.size(1), device=target.device)[None, :] < lengths[:, None]).float()
    mask = mask.unsqueeze(-1)
    return (torch.abs(pred - target) * mask).sum() / (mask.sum() * target.size(-1))


class SpeechDataset(Dataset):
    symbols = list("_~ abcdefghijklmnopqrstuvwxyz!'(),-.:;?")

    def __init__(self, root, metafile):
        with open(os.path.join(root, metafile)) as f:
            self.items = [line.strip().split("|") for line in f]
        self.root = root

    def __len__(self):
        return len(self.items)

    def __getitem__(self, idx):
        name, text = self.items[idx][0], self.items[idx][-1]
        ids = [self.symbols.index(ch) for ch in text.lower() if ch in self.symbols]
        spec = np.load(os.path.join(self.root, "specs", name + ".npz"))
        return ids, spec["linear"], spec["mel"]

    def collate(self, batch):
        max_text = max(len(b[0]) for b in batch)
        max_frames = max(b[2].shape[0] for b in batch)
        text = torch.zeros(len(batch), max_text, dtype=torch.long)
        linear = torch.zeros(len(batch), max_frames, batch[0][1].shape[1])
        mel = torch.zeros(len(batch), max_frames, batch[0][2].shape[1])
        for i, (ids, lin, m) in enumerate(batch):
            text[i, : len(ids)] = torch.tensor(ids)
            linear[i, : lin.shape[0]] = torch.from_numpy(lin)
            mel[i, : m.shape[0]] = torch.from_numpy(m)
        text_len = torch.tensor([len(b[0]) for b in batch])
        mel_len = torch.tensor([b[2].shape[0] for b in batch])
        return text, text_len, linear, mel, mel_len
