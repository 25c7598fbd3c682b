import torch
from torch.utils.data import Dataset


class PairDataset(Dataset):
    def __init__(self, features, labels):
        self.features = features
        self.labels = labels

    def __getitem__(self, index):
        return self.features[index], self.labels[index]

    def __len__(self):
        return self.labels.shape[0]


def make_splits():
    x_train = torch.tensor([[-1.1, 3.0], [-0.8, 2.7], [-0.4, 2.5], [2.2, -1.0], [2.8, -1.4], [3.1, -1.9]])
    y_train = torch.tensor([0, 0, 0, 1, 1, 1])
    x_test = torch.tensor([[-0.7, 2.9], [2.5, -1.7]])
    y_test = torch.tensor([0, 1])
    return PairDataset(x_train, y_train), PairDataset(x_test, y_test)
