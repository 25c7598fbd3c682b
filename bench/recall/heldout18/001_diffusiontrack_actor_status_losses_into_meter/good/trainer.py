from collections import OrderedDict

import torch
from torch.utils.data import DataLoader, TensorDataset

from actor import DiffusionActor, TrackerNet


class AverageMeter:
    def __init__(self):
        self.reset()

    def reset(self):
        self.val = 0
        self.sum = 0
        self.count = 0
        self.avg = 0

    def update(self, val, n=1):
        self.val = val
        self.sum += val * n
        self.count += n
        self.avg = self.sum / self.count


class LTRTrainer:
    def __init__(self, actor, loader, optimizer, device):
        self.actor = actor
        self.loader = loader
        self.optimizer = optimizer
        self.device = device
        self.stats = OrderedDict()

    def _update_stats(self, new_stats, batch_size):
        for name, val in new_stats.items():
            if name not in self.stats:
                self.stats[name] = AverageMeter()
            self.stats[name].update(val, batch_size)

    def cycle_dataset(self):
        self.actor.net.train()
        for search, gt_boxes, labels in self.loader:
            data = {
                "search": search.to(self.device),
                "gt_boxes": gt_boxes.to(self.device),
                "labels": labels.to(self.device),
            }
            loss, stats = self.actor(data)
            self.optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(self.actor.net.parameters(), 0.1)
            self.optimizer.step()
            self._update_stats(stats, search.shape[0])

    def train(self, epochs):
        for epoch in range(epochs):
            self.stats = OrderedDict()
            self.cycle_dataset()
            print(epoch, {k: float(m.avg) for k, m in self.stats.items()})


def main():
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    dataset = TensorDataset(torch.randn(512, 64), torch.rand(512, 4), torch.randint(0, 2, (512,)).float())
    loader = DataLoader(dataset, batch_size=32, shuffle=True)
    net = TrackerNet().to(device)
    actor = DiffusionActor(net, weights={"l1": 5.0, "giou": 2.0, "cls": 1.0})
    optimizer = torch.optim.AdamW(net.parameters(), lr=1e-4)
    LTRTrainer(actor, loader, optimizer, device).train(epochs=50)


if __name__ == "__main__":
    main()
