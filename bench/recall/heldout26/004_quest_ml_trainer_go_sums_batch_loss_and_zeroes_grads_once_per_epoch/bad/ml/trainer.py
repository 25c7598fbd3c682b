from enum import Enum

import torch
import torch.distributed as dist
from torch import nn, optim
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler

from ml import ddp
from ml.logger import Logger
from ml.utils import optional


class Mode(Enum):
    TRAIN = "train"
    VALID = "valid"
    TEST = "test"


class Trainer:
    def __init__(self, config, model, train_data, valid_data, test_data):
        self.logger = Logger(config)
        self.config = config
        self.device = config["device"]
        self.model = model

        self.scaler = None
        self.train_sampler = self.valid_sampler = self.test_sampler = None
        if ddp.is_dist_avail_and_initialized():
            self.scaler = torch.cuda.amp.GradScaler()
            self.train_sampler = DistributedSampler(train_data)
            self.valid_sampler = DistributedSampler(valid_data)
            self.test_sampler = DistributedSampler(test_data)
            self.model = DistributedDataParallel(self.model.to(self.device), device_ids=[config["rank"]])

        def loader(data, sampler):
            return DataLoader(data, batch_size=config["batch_size"], sampler=sampler,
                              num_workers=config["num_workers_dataloader"], pin_memory=config["pin_memory"])

        self.train_dataloader = loader(train_data, self.train_sampler)
        self.valid_dataloader = loader(valid_data, self.valid_sampler)
        self.test_dataloader = loader(test_data, self.test_sampler)

        self.criterion = nn.CrossEntropyLoss()
        self.optimizer = optim.SGD(self.model.parameters(), lr=config["learning_rate"], momentum=config["momentum"])

    def batch_data_to_device(self, batch):
        return tuple(e.to(self.device, non_blocking=True) if torch.is_tensor(e) else e for e in batch)

    def _go(self, mode: Mode, dataloader: DataLoader):
        epoch_loss = torch.zeros(1)
        self.logger.watch(self.model, self.criterion, log="all", log_freq=10)

        if mode == Mode.TRAIN:
            self.model.train()
            self.optimizer.zero_grad(set_to_none=self.config["set_gradients_none"])
        else:
            self.model.eval()

        with optional(mode != Mode.TRAIN, torch.no_grad):
            for batch_data in dataloader:
                inputs, targets = self.batch_data_to_device(batch_data)
                inputs = inputs.flatten()
                targets = targets.flatten()
                with optional(self.config["fp16"] and self.scaler, torch.cuda.amp.autocast):
                    outputs = self.model(inputs)
                batch_loss = self.criterion(outputs, targets)

                if mode == Mode.TRAIN:
                    if self.scaler:
                        self.scaler.scale(batch_loss).backward()
                        self.scaler.step(self.optimizer)  # expect: TCK102
                        self.scaler.update()
                    else:
                        batch_loss.backward()
                        self.optimizer.step()  # expect: TCK102

                self.logger.log_batch(batch_loss)
                epoch_loss += batch_loss  # expect: TCK101

        return epoch_loss

    def _train(self):
        return self._go(Mode.TRAIN, self.train_dataloader)

    def _valid(self):
        return self._go(Mode.VALID, self.valid_dataloader)

    def _test(self):
        return self._go(Mode.TEST, self.test_dataloader)

    def train(self):
        with self.logger(self.config):
            for epoch in range(self.config["epochs"]):
                self.logger.epoch(epoch)
                if self.train_sampler and self.valid_sampler:
                    self.train_sampler.set_epoch(epoch)
                    self.valid_sampler.set_epoch(epoch)
                train_loss = self._train()
                valid_loss = self._valid()
            test_loss = self._test()
        self.model.save(path=self.config["model_save_path"])
        ddp.cleanup()
