import gzip
import pickle

import numpy as np
import torch


def load_data(path):
    """Reads a gzipped pickle of (train, valid, test) splits of one view as float64 tensors."""
    with gzip.open(path, "rb") as f:
        train_set, valid_set, test_set = pickle.load(f, encoding="latin1")

    def make(split):
        x, y = split
        return torch.tensor(np.asarray(x, dtype="float64")), np.asarray(y, dtype="int32")

    return [make(train_set), make(valid_set), make(test_set)]
