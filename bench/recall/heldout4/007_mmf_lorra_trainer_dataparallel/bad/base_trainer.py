import torch


class BaseTrainer:
    def __init__(self, config, model, optimizer, device):
        self.config = config
        self.model = model
        self.optimizer = optimizer
        self.device = device
        self.distributed = config.get("distributed", False)
        self.local_rank = config.get("local_rank", 0)

    def parallelize_model(self):
        self.model = self.model.to(self.device)
        if torch.cuda.device_count() > 1 and not self.distributed:
            self.model = torch.nn.DataParallel(self.model)  # expect: TCK204
        if self.distributed:
            self.model = torch.nn.parallel.DistributedDataParallel(self.model, device_ids=[self.local_rank])

    def train(self, train_loader, max_updates):
        self.parallelize_model()
        self.model.train()
        updates = 0
        while updates < max_updates:
            for batch in train_loader:
                self.optimizer.zero_grad()
                report = self.model(batch)
                loss = sum(report["losses"].values())
                loss.backward()
                self.optimizer.step()
                updates += 1
