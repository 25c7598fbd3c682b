import unittest

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset, dataloader

from batching import pad_collate, to_tensors


class ToyTokens(Dataset):
    def __init__(self, n=10):
        self.lengths = [3 + (i % 4) for i in range(n)]

    def __len__(self):
        return len(self.lengths)

    def __getitem__(self, idx):
        return {
            "tokens": torch.arange(self.lengths[idx]),
            "label": idx % 2,
            "weight": np.float32(0.5),
        }


class BatchingTest(unittest.TestCase):
    def test_pad_collate_shapes(self):
        loader = DataLoader(ToyTokens(), batch_size=4, collate_fn=pad_collate)
        batch = next(iter(loader))
        self.assertEqual(batch["tokens"].shape[0], 4)
        self.assertEqual(batch["label"].tolist(), [0, 1, 0, 1])

    def test_default_collate_numpy_scalars(self):
        arr = [np.float64(1.5), np.float64(2.5)]
        collated = dataloader.default_collate(arr)
        self.assertEqual(collated.dtype, torch.float64)

    def test_convert_keeps_structure(self):
        converted = to_tensors({"x": np.ones(3), "y": 1})
        self.assertIsInstance(converted["x"], torch.Tensor)


if __name__ == "__main__":
    unittest.main()
