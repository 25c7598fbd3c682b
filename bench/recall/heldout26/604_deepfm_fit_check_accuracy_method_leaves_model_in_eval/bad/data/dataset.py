import os

import numpy as np
import pandas as pd
import torch
from torch.utils.data import Dataset

# the first 13 Criteo columns are continuous, the other 26 categorical (already indexed)
continous_features = 13


class CriteoDataset(Dataset):
    """Preprocessed Criteo click logs: (feature indices, feature values, click label)."""

    def __init__(self, root, train=True):
        self.root = root
        self.train = train
        name = "train.txt" if train else "test.txt"
        frame = pd.read_csv(os.path.join(root, name))
        if train:
            self.target = frame.iloc[:, -1].values
            frame = frame.iloc[:, :-1]
        else:
            self.target = None
        self.data = frame.values

    def __getitem__(self, idx):
        row = self.data[idx, :]
        xi_cont = np.zeros_like(row[:continous_features])
        xi_cate = row[continous_features:]
        xi = torch.from_numpy(np.concatenate((xi_cont, xi_cate)).astype(np.int32)).unsqueeze(-1)
        xv_cont = row[:continous_features]
        xv_cate = np.ones_like(row[continous_features:])
        xv = torch.from_numpy(np.concatenate((xv_cont, xv_cate)).astype(np.float32))
        target = self.target[idx] if self.target is not None else 0
        return xi, xv, target

    def __len__(self):
        return len(self.data)
