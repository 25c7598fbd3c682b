import math

import numpy as np
from torch.utils.data import Sampler


class GroupSampler(Sampler):
    """Yields indices so that every batch holds images of one aspect-ratio group."""

    def __init__(self, dataset, samples_per_gpu=1):
        self.flag = dataset.flag.astype(np.int64)
        self.samples_per_gpu = samples_per_gpu
        self.group_sizes = np.bincount(self.flag)
        self.num_samples = sum(
            int(math.ceil(size / samples_per_gpu)) * samples_per_gpu for size in self.group_sizes
        )

    def __iter__(self):
        indices = []
        for i, size in enumerate(self.group_sizes):
            if size == 0:
                continue
            idx = np.random.permutation(np.where(self.flag == i)[0])
            extra = int(math.ceil(size / self.samples_per_gpu)) * self.samples_per_gpu - len(idx)
            indices.append(np.concatenate([idx, idx[:extra]]))
        return iter(np.concatenate(indices).tolist())

    def __len__(self):
        return self.num_samples


class DistributedGroupSampler(GroupSampler):
    def __init__(self, dataset, samples_per_gpu, num_replicas, rank):
        super().__init__(dataset, samples_per_gpu)
        self.num_replicas = num_replicas
        self.rank = rank

    def __iter__(self):
        indices = list(super().__iter__())
        return iter(indices[self.rank::self.num_replicas])

    def __len__(self):
        return self.num_samples // self.num_replicas
