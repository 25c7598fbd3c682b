import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler

torch.distributed.init_process_group(backend="nccl")
local_rank = torch.distributed.get_rank()
torch.cuda.set_device(local_rank)
device = torch.device("cuda", local_rank)


class RandomDataset(Dataset):
    def __init__(self, length):
        self.len = length
        self.data = torch.arange(length, dtype=torch.float32).unsqueeze(1).repeat(1, 5)

    def __getitem__(self, index):
        return self.data[index]

    def __len__(self):
        return self.len


dataset = RandomDataset(16)
sampler = DistributedSampler(dataset)  # expect: TCK206
rand_loader = DataLoader(dataset=dataset, batch_size=2, sampler=sampler)

model = nn.Linear(5, 2).to(device)
model = nn.parallel.DistributedDataParallel(model, device_ids=[local_rank], output_device=local_rank)

for epoch in range(4):
    for data in rand_loader:
        data = data.to(device)
        output = model(data)
        print(epoch, local_rank, data[:, 0].tolist())
