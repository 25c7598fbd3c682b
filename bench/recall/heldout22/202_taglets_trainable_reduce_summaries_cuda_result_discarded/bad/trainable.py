import copy
import logging
import os

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn as nn

log = logging.getLogger(__name__)


class Trainable:
    """A model plus the multi-process routine that trains it."""

    def __init__(self, task):
        self.name = "base"
        self.task = task
        self.lr = 0.0005
        self.criterion = torch.nn.CrossEntropyLoss()
        self.num_epochs = 50 if not os.environ.get("CI") else 5
        self.batch_size = 32
        self.select_on_val = True
        self.save_dir = None
        self.n_proc = 1
        self.model = task.get_initial_model()
        params = [p for p in self.model.parameters() if p.requires_grad]
        self.optimizer = torch.optim.Adam(params, lr=self.lr, weight_decay=1e-4)
        self.lr_scheduler = torch.optim.lr_scheduler.StepLR(self.optimizer, step_size=20, gamma=0.1)

    def train(self, train_data, val_data, use_gpu):
        os.environ["MASTER_ADDR"] = "127.0.0.1"
        os.environ["MASTER_PORT"] = "8888"
        mp.spawn(self._do_train, nprocs=self.n_proc, args=(self, train_data, val_data, use_gpu, self.n_proc))

    @staticmethod
    def _get_train_sampler(data, n_proc, rank):
        return torch.utils.data.distributed.DistributedSampler(data, num_replicas=n_proc, rank=rank)

    def _get_dataloader(self, data, sampler):
        return torch.utils.data.DataLoader(
            dataset=data, batch_size=self.batch_size, shuffle=False,
            num_workers=0, pin_memory=True, sampler=sampler,
        )

    @staticmethod
    def _do_train(rank, self, train_data, val_data, use_gpu, n_proc):
        dist.init_process_group(
            backend="nccl" if use_gpu else "gloo", init_method="env://", world_size=n_proc, rank=rank
        )
        if use_gpu:
            self.model = nn.parallel.DistributedDataParallel(self.model.cuda(rank), device_ids=[rank])
        else:
            self.model = nn.parallel.DistributedDataParallel(self.model.cpu(), device_ids=None)

        train_sampler = Trainable._get_train_sampler(train_data, n_proc=n_proc, rank=rank)
        train_data_loader = self._get_dataloader(data=train_data, sampler=train_sampler)
        if val_data:
            val_sampler = Trainable._get_train_sampler(val_data, n_proc=n_proc, rank=rank)
            val_data_loader = self._get_dataloader(data=val_data, sampler=val_sampler)
        else:
            val_data_loader = None

        best_state = None
        best_val_acc = 0
        for epoch in range(self.num_epochs):
            if rank == 0:
                log.info("Epoch %d", epoch + 1)
            train_sampler.set_epoch(epoch)
            train_loss, train_acc = self._train_epoch(train_data_loader, use_gpu)

            if val_data_loader:
                val_loss, val_acc = self._validate_epoch(val_data_loader, use_gpu)
            else:
                val_loss, val_acc = 0, 0

            # every worker contributes its statistics; rank 0 receives the sum
            summaries = [train_loss, train_acc, val_loss, val_acc]
            summaries = torch.tensor(summaries, requires_grad=False)
            if use_gpu:
                summaries.cuda(rank)  # expect: TCK202
            else:
                summaries.cpu()  # expect: TCK202
            dist.reduce(summaries, 0, op=dist.ReduceOp.SUM)
            train_loss, train_acc, val_loss, val_acc = summaries

            if rank == 0:
                log.info("train loss %.4f acc %.2f%%", train_loss, train_acc * 100)
                log.info("val loss %.4f acc %.2f%%", val_loss, val_acc * 100)
                if val_acc > best_val_acc:
                    best_state = copy.deepcopy(self.model.state_dict())
                    best_val_acc = val_acc
                    if self.save_dir:
                        torch.save(best_state, self.save_dir + "/model.pth.tar")
            if self.lr_scheduler:
                self.lr_scheduler.step()

        if rank == 0 and self.select_on_val and best_state:
            self.model.load_state_dict(best_state)

    def _train_epoch(self, train_data_loader, use_gpu):
        self.model.train()
        running_loss = 0
        running_acc = 0
        for batch in train_data_loader:
            inputs, labels = batch[0], batch[1]
            if use_gpu:
                inputs = inputs.cuda()
                labels = labels.cuda()
            self.optimizer.zero_grad()
            outputs = self.model(inputs)
            loss = self.criterion(outputs, labels)
            loss.backward()
            self.optimizer.step()
            running_loss += loss.item()
            running_acc += self._get_train_acc(outputs, labels)
        if not len(train_data_loader.dataset):
            return 0, 0
        return running_loss / len(train_data_loader.dataset), running_acc.item() / len(train_data_loader.dataset)

    def _validate_epoch(self, val_data_loader, use_gpu):
        self.model.eval()
        running_loss = 0
        running_acc = 0
        for inputs, labels in val_data_loader:
            if use_gpu:
                inputs = inputs.cuda()
                labels = labels.cuda()
            with torch.no_grad():
                outputs = self.model(inputs)
                loss = torch.nn.functional.cross_entropy(outputs, labels)
            running_loss += loss.item()
            running_acc += torch.sum(outputs.argmax(1) == labels)
        return running_loss / len(val_data_loader.dataset), running_acc.item() / len(val_data_loader.dataset)

    @staticmethod
    def _get_train_acc(outputs, labels):
        return torch.sum(torch.max(outputs, 1)[1] == labels)
