import argparse
import os

import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel
from tqdm import tqdm

from architect import Architect
from auto_deeplab import AutoDeeplab
from dataloaders import make_data_loader


class Trainer(object):
    def __init__(self, args):
        # launched with: torchrun --nproc_per_node=NUM_GPUS train_autodeeplab.py
        self.args = args
        dist.init_process_group("nccl")
        self.local_rank = int(os.environ["LOCAL_RANK"])
        torch.cuda.set_device(self.local_rank)
        kwargs = {"num_workers": args.workers, "pin_memory": True}
        self.train_loader1, self.train_loader2, self.val_loader, self.nclass = make_data_loader(args, **kwargs)
        self.criterion = nn.CrossEntropyLoss(ignore_index=255)

        # Define network
        model = AutoDeeplab(num_classes=self.nclass, num_layers=12, criterion=self.criterion)
        optimizer = torch.optim.SGD(
            model.weight_parameters(), args.lr, momentum=args.momentum, weight_decay=args.weight_decay
        )
        self.model, self.optimizer = model, optimizer
        self.scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, args.epochs * len(self.train_loader1))
        self.architect = Architect(self.model, args)

        # one process per GPU
        self.model = DistributedDataParallel(self.model.cuda(self.local_rank), device_ids=[self.local_rank])

        self.best_pred = 0.0

    def training(self, epoch):
        train_loss = 0.0
        self.model.train()
        self.train_loader1.sampler.set_epoch(epoch)
        self.train_loader2.sampler.set_epoch(epoch)
        tbar = tqdm(self.train_loader1, disable=dist.get_rank() != 0)
        search_iter = iter(self.train_loader2)
        for i, sample in enumerate(tbar):
            image, target = sample["image"], sample["label"]
            image, target = image.cuda(self.local_rank), target.cuda(self.local_rank)
            if epoch > self.args.alpha_epoch:
                search = next(search_iter)
                image_search, target_search = search["image"], search["label"]
                image_search, target_search = image_search.cuda(self.local_rank), target_search.cuda(self.local_rank)
                self.architect.step(image_search, target_search)
            self.optimizer.zero_grad()
            output = self.model(image)
            loss = self.criterion(output, target)
            loss.backward()
            self.optimizer.step()
            self.scheduler.step()
            train_loss += loss.detach()
            if i % 50 == 0:
                tbar.set_description("Train loss: %.3f" % (train_loss.item() / (i + 1)))
        print("[Epoch: %d] Loss: %.3f" % (epoch, float(train_loss)))

    @torch.no_grad()
    def validation(self, epoch):
        self.model.eval()
        correct, total = 0, 0
        for sample in self.val_loader:
            image, target = sample["image"], sample["label"]
            image, target = image.cuda(self.local_rank), target.cuda(self.local_rank)
            pred = self.model(image).argmax(dim=1)
            correct += (pred == target).sum()
            total += target.numel()
        acc = float(correct) / total
        if acc > self.best_pred:
            self.best_pred = acc
        if acc >= self.best_pred and dist.get_rank() == 0:
            bare = self.model.module
            os.makedirs(self.args.save_dir, exist_ok=True)
            torch.save({"epoch": epoch + 1, "state_dict": bare.state_dict(), "best_pred": acc}, os.path.join(self.args.save_dir, "checkpoint.pth.tar"))


def main():
    parser = argparse.ArgumentParser(description="PyTorch Auto-DeepLab architecture search")
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--epochs", type=int, default=40)
    parser.add_argument("--alpha_epoch", type=int, default=20)
    parser.add_argument("--batch_size", type=int, default=4)
    parser.add_argument("--lr", type=float, default=0.025)
    parser.add_argument("--momentum", type=float, default=0.9)
    parser.add_argument("--weight_decay", type=float, default=3e-4)
    parser.add_argument("--arch_lr", type=float, default=3e-3)
    parser.add_argument("--arch_weight_decay", type=float, default=1e-3)
    parser.add_argument("--save_dir", type=str, default="run/cityscapes/search")
    args = parser.parse_args()

    trainer = Trainer(args)
    for epoch in range(args.epochs):
        trainer.training(epoch)
        trainer.validation(epoch)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
