"""Batching helpers for variable-length samples."""
import torch
from torch.nn.utils.rnn import pad_sequence
from torch.utils.data import default_collate


def pad_collate(batch):
    """Pads the 'tokens' field and lets the default collate handle everything else."""
    tokens = [sample.pop("tokens") for sample in batch]
    lengths = torch.tensor([len(t) for t in tokens])
    out = default_collate(batch)
    out["tokens"] = pad_sequence(tokens, batch_first=True, padding_value=0)
    out["lengths"] = lengths
    return out
