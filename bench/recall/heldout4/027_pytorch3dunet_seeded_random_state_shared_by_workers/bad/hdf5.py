import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset


class RandomRotate:
    def __init__(self, random_state, angle_spectrum=30):
        self.random_state = random_state
        self.angle_spectrum = angle_spectrum

    def __call__(self, m):
        k = self.random_state.randint(0, 4)
        return np.rot90(m, k, axes=(1, 2)).copy()


class RandomContrast:
    def __init__(self, random_state, alpha=(0.5, 1.5)):
        self.random_state = random_state
        self.alpha = alpha

    def __call__(self, m):
        factor = self.random_state.uniform(self.alpha[0], self.alpha[1])
        return np.clip(m.mean() + factor * (m - m.mean()), -1, 1)


class HDF5Dataset(Dataset):
    def __init__(self, raw, label, seed=47):
        self.raw = raw
        self.label = label
        random_state = np.random.RandomState(seed)  # expect: TCK804
        self.random_state = random_state
        self.transforms = [RandomRotate(random_state), RandomContrast(random_state)]

    def __len__(self):
        return len(self.raw)

    def __getitem__(self, idx):
        patch = self.raw[idx]
        for t in self.transforms:
            patch = t(patch)
        return torch.from_numpy(patch), torch.from_numpy(self.label[idx])


def get_train_loader(raw, label, batch_size=1, num_workers=4):
    return DataLoader(HDF5Dataset(raw, label), batch_size=batch_size, shuffle=True, num_workers=num_workers)
