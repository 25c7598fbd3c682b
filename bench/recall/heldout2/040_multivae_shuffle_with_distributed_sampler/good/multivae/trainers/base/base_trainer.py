import torch
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler


class BaseTrainer:
    def __init__(self, model, train_dataset, training_config):
        self.model = model
        self.training_config = training_config
        self.distributed = training_config.world_size > 1
        self.world_size = training_config.world_size
        self.rank = training_config.rank
        self.train_loader = self.get_train_dataloader(train_dataset)

    def get_train_dataloader(self, train_dataset):
        if self.distributed:
            train_sampler = DistributedSampler(train_dataset, num_replicas=self.world_size, rank=self.rank)
        else:
            train_sampler = None
        return DataLoader(dataset=train_dataset, batch_size=self.training_config.per_device_train_batch_size, num_workers=self.training_config.train_dataloader_num_workers, shuffle=(train_sampler is None), sampler=train_sampler)
