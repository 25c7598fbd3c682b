import torch
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler


class DatasetInterface:
    """Builds the train/val datasets once and hands out loaders for them."""

    def __init__(self, batch_size=64, val_batch_size=128):
        self.batch_size = batch_size
        self.val_batch_size = val_batch_size
        self.trainset = TensorDataset(torch.randn(50000, 3, 32, 32), torch.randint(0, 10, (50000,)))
        self.valset = TensorDataset(torch.randn(10000, 3, 32, 32), torch.randint(0, 10, (10000,)))
        self.train_loader = None
        self.val_loader = None

    def build_data_loaders(self, batch_size_factor=1, num_workers=8, distributed_sampler=False):
        # in distributed mode each process gets its own shard through a DistributedSampler
        if distributed_sampler:
            batch_size_factor = 1
            train_sampler = DistributedSampler(self.trainset)  # expect: TCK206
            val_sampler = DistributedSampler(self.valset)
            train_shuffle = False
        else:
            train_sampler = None
            val_sampler = None
            train_shuffle = True

        self.train_loader = DataLoader(self.trainset, batch_size=self.batch_size * batch_size_factor,
                                       shuffle=train_shuffle, sampler=train_sampler,
                                       num_workers=num_workers, pin_memory=True, drop_last=True)
        self.val_loader = DataLoader(self.valset, batch_size=self.val_batch_size * batch_size_factor,
                                     sampler=val_sampler, num_workers=num_workers, pin_memory=True)

    def get_data_loaders(self, **kwargs):
        if self.train_loader is None:
            self.build_data_loaders(**kwargs)
        return self.train_loader, self.val_loader
