import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset


class RandomDataset(Dataset):
    def __init__(self):
        self.data = torch.rand(22, 1, 32, 32)
        self.name = torch.arange(1, 23)

    def __getitem__(self, idx):
        return self.name[idx], self.data[idx]

    def __len__(self):
        return len(self.data)


def main():
    np.random.seed(5)
    torch.distributed.init_process_group(backend="nccl")
    dataset = RandomDataset()
    sampler = torch.utils.data.distributed.DistributedSampler(dataset, shuffle=True)
    dataloader = DataLoader(dataset, batch_size=5, pin_memory=True, drop_last=True, sampler=sampler)
    for epoch in range(3):
        print("epoch: ", epoch)
        sampler.set_epoch(epoch)
        for i, data in enumerate(dataloader, 0):
            names, _ = data
            print(names)


if __name__ == "__main__":
    main()
