import torch
from torch import nn
from torch.nn import functional as F
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler


class CoolModel(nn.Module):
    def __init__(self, hidden=64, use_ddp=True):
        super().__init__()
        self.use_ddp = use_ddp
        self.l1 = nn.Linear(28 * 28, hidden)
        self.l2 = nn.Linear(hidden, 10)

    def forward(self, x):
        return self.l2(torch.relu(self.l1(x.view(x.size(0), -1))))

    def training_step(self, batch, batch_nb):
        x, y = batch
        return F.cross_entropy(self(x), y)

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=0.02)

    def tng_dataloader(self):
        dataset = TensorDataset(torch.randn(2048, 1, 28, 28), torch.randint(0, 10, (2048,)))
        sampler = None
        if self.use_ddp:
            sampler = DistributedSampler(dataset, shuffle=True)  # expect: TCK206
        return DataLoader(dataset, batch_size=32, shuffle=sampler is None, sampler=sampler)
