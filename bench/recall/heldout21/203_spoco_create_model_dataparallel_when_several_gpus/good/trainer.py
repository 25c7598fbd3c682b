import os

import torch
import torch.nn as nn
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler
from torch.utils.tensorboard import SummaryWriter

from datasets import CVPPPDataset, contrastive_loss
from model import create_model, get_number_of_learnable_parameters


class RunningAverage:
    def __init__(self):
        self.count, self.sum, self.avg = 0, 0.0, 0.0

    def update(self, value, n=1):
        self.count += n
        self.sum += value * n
        self.avg = self.sum / self.count


def create_train_val_loaders(args):
    train_set = CVPPPDataset(args.ds_path, "train")
    val_set = CVPPPDataset(args.ds_path, "val")
    train_loader = DataLoader(train_set, batch_size=args.batch_size, num_workers=args.num_workers,
                              sampler=DistributedSampler(train_set, shuffle=True), pin_memory=True)
    val_loader = DataLoader(val_set, batch_size=args.batch_size, num_workers=args.num_workers,
                            sampler=DistributedSampler(val_set, shuffle=False), pin_memory=True)
    return train_loader, val_loader


class SpocoTrainer:
    def __init__(self, args):
        model = create_model(args)
        model.cuda(args.gpu)
        print(f"Number of learnable params {get_number_of_learnable_parameters(model)}")
        self.model = nn.parallel.DistributedDataParallel(model, device_ids=[args.gpu])
        self.loss_criterion = contrastive_loss
        self.optimizer = torch.optim.Adam(model.parameters(), lr=args.learning_rate, weight_decay=args.weight_decay)
        self.train_loader, self.val_loader = create_train_val_loaders(args)
        self.gpu = args.gpu
        self.rank = args.rank
        self.checkpoint_dir = args.checkpoint_dir
        self.max_num_epochs = args.max_num_epochs
        self.log_after_iters = args.log_after_iters
        self.num_iterations = 0
        self.best_validation_loss = float("inf")
        self.writer = SummaryWriter(log_dir=os.path.join(args.checkpoint_dir, "logs")) if self.rank == 0 else None

    def train(self):
        for epoch in range(self.max_num_epochs):
            self.train_loader.sampler.set_epoch(epoch)
            self.train_epoch()
            self.model.eval()
            validation_loss = self.validate()
            self.model.train()
            is_best = validation_loss < self.best_validation_loss
            self.best_validation_loss = min(validation_loss, self.best_validation_loss)
            if self.rank == 0:
                checkpoint = {
                    "epoch": epoch + 1,
                    "num_iterations": self.num_iterations,
                    "model_state_dict": self.model.module.state_dict(),
                    "best_validation_loss": self.best_validation_loss,
                    "optimizer": self.optimizer.state_dict(),
                }
                torch.save(checkpoint, os.path.join(self.checkpoint_dir, "last_checkpoint.pytorch"))
                if is_best:
                    torch.save(checkpoint, os.path.join(self.checkpoint_dir, "best_checkpoint.pytorch"))

    def train_epoch(self):
        train_losses = RunningAverage()
        self.model.train()
        for im_q, im_k, target in self.train_loader:
            im_q, im_k = im_q.cuda(self.gpu, non_blocking=True), im_k.cuda(self.gpu, non_blocking=True)
            target = target.cuda(self.gpu, non_blocking=True)
            emb_q, emb_k = self.model(im_q, im_k)
            loss = self.loss_criterion((emb_q, emb_k), target)

            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()

            if self.num_iterations % self.log_after_iters == 0:
                train_losses.update(loss.item(), im_q.size(0))
                if self.writer is not None:
                    self.writer.add_scalar("train_loss_avg", train_losses.avg, self.num_iterations)
            self.num_iterations += 1

    @torch.no_grad()
    def validate(self):
        val_losses = RunningAverage()
        for im_q, im_k, target in self.val_loader:
            im_q, im_k, target = im_q.cuda(self.gpu), im_k.cuda(self.gpu), target.cuda(self.gpu)
            emb_q, emb_k = self.model(im_q, im_k)
            val_losses.update(self.loss_criterion((emb_q, emb_k), target).item(), im_q.size(0))
        if self.writer is not None:
            self.writer.add_scalar("val_loss_avg", val_losses.avg, self.num_iterations)
        return val_losses.avg
