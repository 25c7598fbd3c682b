import torch
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler


class Bunch:
    def __init__(self, trainset, valid=None, use_ddp=False, batch_size=512, num_workers=2):
        if use_ddp:
            self.train_sampler = DistributedSampler(trainset, shuffle=True)
            shuffle = False
        else:
            self.train_sampler = None
            shuffle = True
        self.train_loader = DataLoader(trainset, batch_size=batch_size, shuffle=shuffle,
                                       sampler=self.train_sampler, num_workers=num_workers, drop_last=True)
        self.valid_loader = DataLoader(valid, batch_size=batch_size, shuffle=False) if valid is not None else None
