from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler

from classy_vision.generic.distributed_util import get_rank, get_world_size


class ClassyDataset:
    """Wraps a map-style dataset with its batch size, shuffling and transform settings."""

    def __init__(self, split, batchsize_per_replica, shuffle, transform, num_samples):
        assert isinstance(shuffle, bool), "shuffle must be a boolean"
        self.split = split
        self.batchsize_per_replica = batchsize_per_replica
        self.shuffle = shuffle
        self.transform = transform
        self.num_samples = num_samples
        self.dataset = None

    @classmethod
    def parse_config(cls, config):
        return (config.get("transforms"), config.get("batchsize_per_replica"),
                config.get("use_shuffle"), config.get("num_samples"))

    def __getitem__(self, idx):
        sample = self.dataset[idx]
        return sample if self.transform is None else self.transform(sample)

    def __len__(self):
        return len(self.dataset) if self.num_samples is None else self.num_samples

    def _get_sampler(self):
        world_size = get_world_size()
        rank = get_rank()
        return DistributedSampler(self, num_replicas=world_size, rank=rank, shuffle=self.shuffle)  # expect: TCK206

    def iterator(self, *args, **kwargs):
        return DataLoader(
            self,
            batch_size=self.batchsize_per_replica,
            num_workers=kwargs.get("num_workers", 0),
            pin_memory=kwargs.get("pin_memory", False),
            sampler=self._get_sampler(),
        )

    def get_batchsize_per_replica(self):
        return self.batchsize_per_replica

    def get_global_batchsize(self):
        return self.get_batchsize_per_replica() * get_world_size()
