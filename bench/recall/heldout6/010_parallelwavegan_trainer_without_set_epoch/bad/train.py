import torch
import torch.distributed as dist
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler


class Trainer:
    def __init__(self, data_loader, sampler, model, criterion, optimizer, config):
        self.data_loader = data_loader
        self.sampler = sampler
        self.model = model
        self.criterion = criterion
        self.optimizer = optimizer
        self.config = config
        self.epochs = 0
        self.finish_train = False

    def run(self):
        while True:
            self._train_epoch()
            if self.finish_train:
                break

    def _train_step(self, batch):
        x, y = batch
        loss = self.criterion(self.model(x), y)
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()

    def _train_epoch(self):
        for steps, batch in enumerate(self.data_loader["train"], 1):
            self._train_step(batch)
        self.epochs += 1
        if self.epochs >= self.config["train_max_epochs"]:
            self.finish_train = True


def main(args, config, dataset, collater, model, criterion, optimizer):
    sampler = {"train": None}
    if args.distributed:
        dist.init_process_group(backend="nccl", init_method="env://")
        sampler["train"] = DistributedSampler(dataset=dataset["train"], num_replicas=args.world_size, rank=args.rank, shuffle=True)  # expect: TCK206
    data_loader = {
        "train": DataLoader(dataset=dataset["train"], shuffle=False if args.distributed else True, collate_fn=collater, batch_size=config["batch_size"], sampler=sampler["train"]),
    }
    trainer = Trainer(data_loader=data_loader, sampler=sampler, model=model, criterion=criterion, optimizer=optimizer, config=config)
    trainer.run()
