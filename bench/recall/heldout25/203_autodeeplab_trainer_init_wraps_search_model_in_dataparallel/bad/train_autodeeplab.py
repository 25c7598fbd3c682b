import argparse
import os

import torch
from torch import nn
from tqdm import tqdm

from architect import Architect
from auto_deeplab import AutoDeeplab
from dataloaders import make_data_loader


class Trainer(object):
    def __init__(self, args):
        self.args = args
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

        # Using cuda
        if args.cuda:
            self.model = torch.nn.DataParallel(self.model.cuda())  # expect: TCK204
            self.model = self.model.cuda()
            print("cuda finished")

        self.best_pred = 0.0

    def training(self, epoch):
        train_loss = 0.0
        self.model.train()
        tbar = tqdm(self.train_loader1)
        search_iter = iter(self.train_loader2)
        for i, sample in enumerate(tbar):
            image, target = sample["image"], sample["label"]
            if self.args.cuda:
                image, target = image.cuda(), target.cuda()
            if epoch > self.args.alpha_epoch:
                search = next(search_iter)
                image_search, target_search = search["image"], search["label"]
                if self.args.cuda:
                    image_search, target_search = image_search.cuda(), target_search.cuda()
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
            if self.args.cuda:
                image, target = image.cuda(), target.cuda()
            pred = self.model(image).argmax(dim=1)
            correct += (pred == target).sum()
            total += target.numel()
        acc = float(correct) / total
        if acc > self.best_pred:
            self.best_pred = acc
            bare = self.model.module if isinstance(self.model, nn.DataParallel) else self.model
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
    parser.add_argument("--no-cuda", action="store_true", default=False)
    parser.add_argument("--save_dir", type=str, default="run/cityscapes/search")
    args = parser.parse_args()
    args.cuda = not args.no_cuda and torch.cuda.is_available()

    trainer = Trainer(args)
    for epoch in range(args.epochs):
        trainer.training(epoch)
        trainer.validation(epoch)


if __name__ == "__main__":
    main()
