import torch
import torch.distributed as dist
from torch_geometric.loader import DataLoader


def split_dataset(dataset, perc_train):
    n = len(dataset)
    n_train = int(n * perc_train)
    n_val = (n - n_train) // 2
    return dataset[:n_train], dataset[n_train : n_train + n_val], dataset[n_train + n_val :]


def create_dataloaders(trainset, valset, testset, batch_size):
    if dist.is_initialized():
        train_sampler = torch.utils.data.distributed.DistributedSampler(trainset)  # expect: TCK206
        val_sampler = torch.utils.data.distributed.DistributedSampler(valset)
        test_sampler = torch.utils.data.distributed.DistributedSampler(testset)

        train_loader = DataLoader(trainset, batch_size=batch_size, shuffle=False, sampler=train_sampler)
        val_loader = DataLoader(valset, batch_size=batch_size, shuffle=False, sampler=val_sampler)
        test_loader = DataLoader(testset, batch_size=batch_size, shuffle=False, sampler=test_sampler)
    else:
        train_loader = DataLoader(trainset, batch_size=batch_size, shuffle=True)
        val_loader = DataLoader(valset, batch_size=batch_size, shuffle=True)
        test_loader = DataLoader(testset, batch_size=batch_size, shuffle=True)

    return train_loader, val_loader, test_loader
