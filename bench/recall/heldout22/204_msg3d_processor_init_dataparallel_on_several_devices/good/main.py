import argparse
import os
import time
from collections import OrderedDict

import numpy as np
import torch
import torch.distributed as dist
import torch.nn as nn
import torch.optim as optim
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data.distributed import DistributedSampler
from torch.optim.lr_scheduler import MultiStepLR
from tqdm import tqdm

from feeder import Feeder
from msg3d import Model


def get_parser():
    parser = argparse.ArgumentParser(description="MS-G3D skeleton action recognition")
    parser.add_argument("--work-dir", default="./work_dir/ntu60")
    parser.add_argument("--base-lr", type=float, default=0.05)
    parser.add_argument("--step", type=int, default=[30, 40], nargs="+")
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--forward-batch-size", type=int, default=16)
    parser.add_argument("--num-epoch", type=int, default=50)
    parser.add_argument("--weight-decay", type=float, default=0.0005)
    parser.add_argument("--weights", default=None)
    parser.add_argument("--save-interval", type=int, default=1)
    return parser


class Processor:
    """Trains and evaluates the skeleton model."""

    def __init__(self, arg):
        self.arg = arg
        # one process per GPU, started by torchrun
        self.local_rank = int(os.environ.get("LOCAL_RANK", 0))
        self.distributed = int(os.environ.get("WORLD_SIZE", 1)) > 1
        torch.cuda.set_device(self.local_rank)
        if self.distributed:
            dist.init_process_group(backend="nccl")
        self.load_model()
        self.load_optimizer()
        self.load_data()
        self.global_step = 0
        self.best_acc = 0

        if self.distributed:
            self.print_log(f"{dist.get_world_size()} processes, using DistributedDataParallel")
            self.model = DistributedDataParallel(self.model, device_ids=[self.local_rank])

    def is_master(self):
        return not self.distributed or dist.get_rank() == 0

    def print_log(self, s):
        if self.is_master():
            print(time.strftime("[ %H:%M:%S ] "), s)

    def load_model(self):
        self.output_device = self.local_rank
        self.model = Model().cuda(self.output_device)
        self.loss = nn.CrossEntropyLoss().cuda(self.output_device)
        if self.arg.weights:
            weights = torch.load(self.arg.weights, map_location="cpu")
            weights = OrderedDict([[k.split("module.")[-1], v] for k, v in weights.items()])
            self.model.load_state_dict(weights)

    def load_optimizer(self):
        self.optimizer = optim.SGD(self.model.parameters(), lr=self.arg.base_lr, momentum=0.9,
                                   nesterov=True, weight_decay=self.arg.weight_decay)
        self.lr_scheduler = MultiStepLR(self.optimizer, milestones=self.arg.step, gamma=0.1)

    def load_data(self):
        train_set = Feeder(seed=0)
        self.train_sampler = DistributedSampler(train_set, shuffle=True) if self.distributed else None
        self.data_loader = {
            "train": torch.utils.data.DataLoader(train_set, batch_size=self.arg.batch_size,
                                                 shuffle=self.train_sampler is None, sampler=self.train_sampler,
                                                 num_workers=2, drop_last=True),
            "test": torch.utils.data.DataLoader(Feeder(num_samples=128, seed=1), batch_size=self.arg.batch_size,
                                                shuffle=False, num_workers=2),
        }

    def save_weights(self, epoch, out_folder="weights"):
        weights = OrderedDict([[k.split("module.")[-1], v.cpu()] for k, v in self.model.state_dict().items()])
        os.makedirs(os.path.join(self.arg.work_dir, out_folder), exist_ok=True)
        torch.save(weights, os.path.join(self.arg.work_dir, out_folder, f"weights-{epoch}-{self.global_step}.pt"))

    def train(self, epoch, save_model=False):
        self.model.train()
        if self.train_sampler is not None:
            self.train_sampler.set_epoch(epoch)
        loss_values = []
        for data, label, index in tqdm(self.data_loader["train"], dynamic_ncols=True):
            self.global_step += 1
            data = data.float().cuda(self.output_device)
            label = label.long().cuda(self.output_device)
            self.optimizer.zero_grad()

            # gradient accumulation over forward-sized chunks
            splits = len(data) // self.arg.forward_batch_size
            for i in range(splits):
                left = i * self.arg.forward_batch_size
                right = left + self.arg.forward_batch_size
                output = self.model(data[left:right])
                loss = self.loss(output, label[left:right]) / splits
                loss.backward()
                loss_values.append(loss.detach())
            self.optimizer.step()

        self.print_log(f"\tMean training loss: {torch.stack(loss_values).mean().item() * splits:.4f}")
        self.lr_scheduler.step()
        if save_model and self.is_master():
            self.save_weights(epoch + 1)

    @torch.no_grad()
    def eval(self, epoch):
        if not self.is_master():
            return
        # rank 0 evaluates the whole test set with the bare model (no collectives)
        model = self.model.module if self.distributed else self.model
        model.eval()
        correct, total = 0, 0
        for data, label, index in self.data_loader["test"]:
            data = data.float().cuda(self.output_device)
            label = label.long().cuda(self.output_device)
            correct += (model(data).argmax(1) == label).sum().item()
            total += len(label)
        acc = correct / total
        if acc > self.best_acc:
            self.best_acc = acc
        self.print_log(f"\tTop1: {acc * 100:.2f}% (best {self.best_acc * 100:.2f}%)")

    def start(self):
        for epoch in range(self.arg.num_epoch):
            save_model = ((epoch + 1) % self.arg.save_interval == 0) or (epoch + 1 == self.arg.num_epoch)
            self.train(epoch, save_model=save_model)
            self.eval(epoch)


if __name__ == "__main__":
    arg = get_parser().parse_args()
    Processor(arg).start()
