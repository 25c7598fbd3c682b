import os

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler

from distributed_training_utils import reduce_results_tuple_for_ddp


class Accuracy:
    def __init__(self, device):
        self.correct = torch.zeros((), device=device)
        self.total = torch.zeros((), device=device)

    def update(self, logits, target):
        self.correct += (logits.argmax(1) == target).sum()
        self.total += target.numel()

    def compute(self):
        return self.correct / self.total.clamp(min=1)


class Trainer:
    def __init__(self, net, device, ddp=False):
        self.device = device
        self.ddp = ddp
        self.net = net.to(device)
        if ddp:
            self.net = DDP(self.net, device_ids=[device.index])
        self.criterion = nn.CrossEntropyLoss()
        self.optimizer = torch.optim.SGD(self.net.parameters(), lr=0.1, momentum=0.9)

    def _train_epoch(self, loader):
        self.net.train()
        for x, y in loader:
            x, y = x.to(self.device), y.to(self.device)
            self.optimizer.zero_grad()
            loss = self.criterion(self.net(x), y)
            loss.backward()
            self.optimizer.step()

    @torch.no_grad()
    def _validate_epoch(self, loader):
        self.net.eval()
        loss_sum = torch.zeros((), device=self.device)
        metric = Accuracy(self.device)
        for x, y in loader:
            x, y = x.to(self.device), y.to(self.device)
            logits = self.net(x)
            loss_sum += self.criterion(logits, y)
            metric.update(logits, y)
        results = (loss_sum / len(loader), metric.compute())
        if self.ddp:
            results = reduce_results_tuple_for_ddp(results, self.device)
        return results

    def train(self, train_loader, valid_loader, sampler, epochs):
        for epoch in range(epochs):
            sampler.set_epoch(epoch)
            self._train_epoch(train_loader)
            valid_loss, valid_acc = self._validate_epoch(valid_loader)
            if not self.ddp or dist.get_rank() == 0:
                print(f"epoch {epoch}: valid loss {valid_loss.item():.4f} acc {valid_acc.item():.3f}")


if __name__ == "__main__":
    dist.init_process_group("nccl")
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    device = torch.device("cuda", local_rank)
    data = TensorDataset(torch.randn(512, 32), torch.randint(0, 10, (512,)))
    sampler = DistributedSampler(data, shuffle=True)
    train_loader = DataLoader(data, batch_size=64, sampler=sampler)
    valid_loader = DataLoader(data, batch_size=128, sampler=DistributedSampler(data, shuffle=False))
    net = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 10))
    Trainer(net, device, ddp=True).train(train_loader, valid_loader, sampler, epochs=5)
    dist.destroy_process_group()
