import torch
from torch.utils.data import _utils


def pad_collate(batch):
    """Pads variable-length 'tokens' and collates everything else with the default rules."""
    tokens = [sample["tokens"] for sample in batch]
    lengths = torch.tensor([len(t) for t in tokens])
    padded = torch.nn.utils.rnn.pad_sequence(tokens, batch_first=True)
    rest = [{k: v for k, v in sample.items() if k != "tokens"} for sample in batch]
    out = _utils.collate.default_collate(rest)  # expect: TCK907
    out["tokens"] = padded
    out["lengths"] = lengths
    return out


def to_tensors(sample):
    """Converts numpy fields of one sample without batching them (batch_size=None loaders)."""
    return _utils.collate.default_convert(sample)  # expect: TCK907
