import logging
import os

import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data.distributed import DistributedSampler

logger = logging.getLogger("awnas.final")


class CNNFinalTrainer:
    NAME = "cnn_trainer"

    def __init__(self, model, train_set, test_set, device, local_rank, multiprocess=False, epochs=600,
                 batch_size=96, learning_rate=0.025, momentum=0.9, weight_decay=3e-4, grad_clip=5.0,
                 workers_per_queue=2):
        self.model = model
        self.parallel_model = None
        self.device = device
        self.local_rank = local_rank
        self.multiprocess = multiprocess
        self.epochs = epochs
        self.grad_clip = grad_clip
        self._criterion = nn.CrossEntropyLoss().to(self.device)
        self.train_sampler = DistributedSampler(train_set) if multiprocess else None
        self.train_queue = torch.utils.data.DataLoader(
            train_set, batch_size=batch_size, shuffle=self.train_sampler is None, sampler=self.train_sampler,
            pin_memory=True, num_workers=workers_per_queue)
        self.valid_queue = torch.utils.data.DataLoader(
            test_set, batch_size=batch_size, shuffle=False, pin_memory=True, num_workers=workers_per_queue)
        self.optimizer = torch.optim.SGD(self.model.parameters(), lr=learning_rate, momentum=momentum,
                                         weight_decay=weight_decay)
        self.scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(self.optimizer, T_max=epochs, eta_min=0.001)

    def setup(self, train_dir):
        self.train_dir = train_dir
        logger.info("param size = %f M", sum(p.numel() for p in self.model.parameters()) / 1e6)
        self._parallelize()

    def _parallelize(self):
        if self.multiprocess:
            self.parallel_model = DistributedDataParallel(self.model, device_ids=[self.local_rank],
                                                          output_device=self.local_rank)
        else:
            self.parallel_model = self.model

    def _is_main_process(self):
        return not self.multiprocess or dist.get_rank() == 0

    def train(self):
        for epoch in range(1, self.epochs + 1):
            if self.train_sampler is not None:
                self.train_sampler.set_epoch(epoch)
            train_acc, train_obj = self.train_epoch(self.train_queue, self.parallel_model, self._criterion,
                                                    self.optimizer, self.device, epoch)
            self.scheduler.step()
            logger.info("train: epoch %3d ; train_acc %.2f ; train_obj %.3f", epoch, train_acc, train_obj)
            valid_acc, valid_obj = self.infer_epoch(self.valid_queue, self.parallel_model, self._criterion,
                                                    self.device)
            logger.info("valid: epoch %3d ; valid_acc %.2f ; valid_obj %.3f", epoch, valid_acc, valid_obj)
            if self._is_main_process():
                torch.save(self.model.state_dict(), os.path.join(self.train_dir, "model_state.pt"))

    def train_epoch(self, train_queue, model, criterion, optimizer, device, epoch):
        model.train()
        correct, total, loss_sum = 0, 0, 0.0
        for step, (inputs, target) in enumerate(train_queue):
            inputs, target = inputs.to(device), target.to(device)
            optimizer.zero_grad()
            logits = model(inputs)
            loss = criterion(logits, target)
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), self.grad_clip)
            optimizer.step()
            if step % 50 == 0:
                correct += (logits.argmax(1) == target).sum().item()
                total += target.size(0)
                loss_sum += loss.item()
        return 100.0 * correct / max(total, 1), loss_sum / max(len(train_queue) // 50, 1)

    def infer_epoch(self, valid_queue, model, criterion, device):
        model.eval()
        correct, total, loss_sum = 0, 0, 0.0
        with torch.no_grad():
            for inputs, target in valid_queue:
                inputs, target = inputs.to(device), target.to(device)
                logits = model(inputs)
                loss_sum += criterion(logits, target).item() * target.size(0)
                correct += (logits.argmax(1) == target).sum().item()
                total += target.size(0)
        return 100.0 * correct / total, loss_sum / total
