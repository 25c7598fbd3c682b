import os

import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 10))

    def forward(self, x):
        return self.body(x)


class Trainer:
    def __init__(self, ckpt_path="last.pt", epochs=10):
        self.distributed = "WORLD_SIZE" in os.environ and int(os.environ["WORLD_SIZE"]) > 1
        self.rank = int(os.environ.get("RANK", 0))
        self.local_rank = int(os.environ.get("LOCAL_RANK", 0))
        self.device = torch.device("cuda", self.local_rank) if torch.cuda.is_available() else torch.device("cpu")
        self.ckpt_path = ckpt_path
        self.epochs = epochs
        self.model = Net().to(self.device)
        self.start_epoch = 0

    def resume(self):
        if os.path.exists(self.ckpt_path):
            ckpt = torch.load(self.ckpt_path, map_location=self.device, weights_only=True)
            self.model.load_state_dict(ckpt["model"])
            self.start_epoch = ckpt["epoch"] + 1

    def setup(self):
        self.resume()
        if self.distributed:
            dist.init_process_group("nccl")
            torch.cuda.set_device(self.local_rank)
            self.model = DDP(self.model, device_ids=[self.local_rank])
        self.optimizer = torch.optim.SGD(self.model.parameters(), lr=0.1, momentum=0.9)
        data = TensorDataset(torch.randn(8192, 64), torch.randint(0, 10, (8192,)))
        self.sampler = DistributedSampler(data) if self.distributed else None
        self.loader = DataLoader(data, batch_size=128, shuffle=self.sampler is None, sampler=self.sampler)

    def save(self, epoch):
        if self.rank == 0:
            model = self.model.module if self.distributed else self.model
            torch.save({"model": model.state_dict(), "epoch": epoch}, self.ckpt_path)

    def fit(self):
        self.setup()
        criterion = nn.CrossEntropyLoss()
        for epoch in range(self.start_epoch, self.epochs):
            if self.sampler is not None:
                self.sampler.set_epoch(epoch)
            self.model.train()
            for x, y in self.loader:
                x, y = x.to(self.device), y.to(self.device)
                self.optimizer.zero_grad()
                loss = criterion(self.model(x), y)
                loss.backward()
                self.optimizer.step()
            self.save(epoch)


if __name__ == "__main__":
    Trainer().fit()
