import torch
from torch.utils.data import DataLoader, Dataset, DistributedSampler


class MomentDataset(Dataset):
    """Pre-extracted clip features and a 2D map of moment scores per query."""

    def __init__(self, num_items=1000, num_clips=64, feat_dim=500, query_len=20):
        self.feats = torch.randn(num_items, num_clips, feat_dim)
        self.queries = torch.randn(num_items, query_len, 300)
        self.targets = torch.rand(num_items, num_clips, num_clips)

    def __len__(self):
        return len(self.feats)

    def __getitem__(self, idx):
        return (self.feats[idx], self.queries[idx]), self.targets[idx], idx


def make_data_sampler(dataset, shuffle, distributed):
    if distributed:
        return DistributedSampler(dataset, shuffle=shuffle)  # expect: TCK206
    if shuffle:
        return torch.utils.data.RandomSampler(dataset)
    return torch.utils.data.SequentialSampler(dataset)


def make_data_loader(cfg, is_train=True, is_distributed=False):
    dataset = MomentDataset()
    batch_size = cfg["batch_size"] // cfg["world_size"]
    sampler = make_data_sampler(dataset, shuffle=is_train, distributed=is_distributed)
    batch_sampler = torch.utils.data.BatchSampler(sampler, batch_size, drop_last=False)
    return DataLoader(dataset, batch_sampler=batch_sampler, num_workers=cfg["num_workers"])
