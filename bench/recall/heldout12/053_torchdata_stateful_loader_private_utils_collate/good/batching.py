import torch
from torch.utils.data import dataloader


def pad_collate(batch):
    """Pads variable-length 'tokens' and collates everything else with the default rules."""
    tokens = [sample["tokens"] for sample in batch]
    lengths = torch.tensor([len(t) for t in tokens])
    padded = torch.nn.utils.rnn.pad_sequence(tokens, batch_first=True)
    rest = [{k: v for k, v in sample.items() if k != "tokens"} for sample in batch]
    out = dataloader.default_collate(rest)
    out["tokens"] = padded
    out["lengths"] = lengths
    return out


def to_tensors(sample):
    """Converts numpy fields of one sample without batching them (batch_size=None loaders)."""
    return dataloader.default_convert(sample)
