import argparse

import torch
from torch.nn.utils.rnn import pad_sequence
from torch.utils.data import DataLoader, Dataset

from models import Seq2SeqASR
from trainer import Trainer


class SpeechDataset(Dataset):
    """Pre-computed filterbank features and token ids saved as a list of dicts."""

    def __init__(self, path):
        self.items = torch.load(path)

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        item = self.items[i]
        return item["feats"], item["tokens"]


def collate(batch, sos=1, eos=2):
    feats = pad_sequence([f for f, _ in batch], batch_first=True)
    ids = pad_sequence([torch.cat([torch.tensor([sos]), t]) for _, t in batch], batch_first=True)
    labels = pad_sequence([torch.cat([t, torch.tensor([eos])]) for _, t in batch], batch_first=True)
    paddings = pad_sequence([torch.zeros(len(t) + 1) for _, t in batch], batch_first=True, padding_value=1.0)
    return feats, ids, labels, paddings


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--train", required=True)
    parser.add_argument("--valid", required=True)
    parser.add_argument("--epochs", type=int, default=80)
    parser.add_argument("--lr", type=float, default=1e-3)
    args = parser.parse_args()

    tr_loader = DataLoader(SpeechDataset(args.train), batch_size=16, shuffle=True,
                           num_workers=4, collate_fn=collate)
    cv_loader = DataLoader(SpeechDataset(args.valid), batch_size=16, shuffle=False,
                           num_workers=4, collate_fn=collate)
    model = Seq2SeqASR()
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr, betas=(0.9, 0.98))
    Trainer(model, optimizer, tr_loader, cv_loader).train(args.epochs)


if __name__ == "__main__":
    main()
