"""Train a searched LaNet cell stack on CIFAR-10 (auxiliary tower, EMA of the weights)."""

import argparse
import logging
from copy import deepcopy

import torch
import torch.nn as nn
import torchvision.datasets as dset
import torchvision.transforms as transforms

import utils
from model import NetworkCIFAR as Network

parser = argparse.ArgumentParser("cifar")
parser.add_argument("--data", type=str, default="../data")
parser.add_argument("--batch_size", type=int, default=128)
parser.add_argument("--learning_rate", type=float, default=0.025)
parser.add_argument("--epochs", type=int, default=600)
parser.add_argument("--init_ch", type=int, default=36)
parser.add_argument("--layers", type=int, default=20)
parser.add_argument("--arch", type=str, required=True)
parser.add_argument("--auxiliary", action="store_true", default=False)
parser.add_argument("--auxiliary_weight", type=float, default=0.4)
parser.add_argument("--model_ema", action="store_true", default=False)
parser.add_argument("--model_ema_decay", type=float, default=0.9998)
parser.add_argument("--grad_clip", type=float, default=5)
parser.add_argument("--report_freq", type=int, default=50)
args = parser.parse_args()


class ModelEma:
    def __init__(self, model, decay):
        self.ema = deepcopy(model)
        self.ema.eval()
        self.decay = decay
        for p in self.ema.parameters():
            p.requires_grad_(False)

    @torch.no_grad()
    def update(self, model):
        for ema_v, model_v in zip(self.ema.state_dict().values(), model.state_dict().values()):
            ema_v.copy_(ema_v * self.decay + (1.0 - self.decay) * model_v)


def main():
    genotype = eval(args.arch)
    model = Network(args.init_ch, 10, args.layers, args.auxiliary, genotype).cuda()
    model_ema = ModelEma(model, args.model_ema_decay) if args.model_ema else None

    criterion = nn.CrossEntropyLoss().cuda()
    optimizer = torch.optim.SGD(model.parameters(), args.learning_rate, momentum=0.9, weight_decay=3e-4)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, float(args.epochs))

    normalize = transforms.Normalize([0.4914, 0.4822, 0.4465], [0.2470, 0.2435, 0.2616])
    train_transform = transforms.Compose(
        [transforms.RandomCrop(32, padding=4), transforms.RandomHorizontalFlip(), transforms.ToTensor(), normalize]
    )
    valid_transform = transforms.Compose([transforms.ToTensor(), normalize])
    train_data = dset.CIFAR10(root=args.data, train=True, download=True, transform=train_transform)
    valid_data = dset.CIFAR10(root=args.data, train=False, download=True, transform=valid_transform)
    train_queue = torch.utils.data.DataLoader(
        train_data, batch_size=args.batch_size, shuffle=True, pin_memory=True, num_workers=4
    )
    valid_queue = torch.utils.data.DataLoader(
        valid_data, batch_size=args.batch_size, shuffle=False, pin_memory=True, num_workers=4
    )

    for epoch in range(args.epochs):
        train_acc, train_obj = train(train_queue, model, criterion, optimizer, model_ema)
        scheduler.step()
        logging.info("epoch %d train_acc %f", epoch, train_acc)
        valid_acc, valid_obj = infer(valid_queue, model, criterion)
        logging.info("epoch %d valid_acc %f", epoch, valid_acc)
        if model_ema is not None:
            valid_acc_ema, _ = infer(valid_queue, model_ema.ema, criterion)
            logging.info("epoch %d valid_acc_ema %f", epoch, valid_acc_ema)
        utils.save_checkpoint({"epoch": epoch + 1, "state_dict": model.state_dict()}, "checkpoint.pt")


def train(train_queue, model, criterion, optimizer, model_ema=None):
    objs = utils.AverageMeter()
    top1 = utils.AverageMeter()
    top5 = utils.AverageMeter()
    model.train()

    for step, (x, target) in enumerate(train_queue):
        x = x.cuda()
        target = target.cuda(non_blocking=True)

        optimizer.zero_grad()
        logits, logits_aux = model(x)
        loss = criterion(logits, target)
        if args.auxiliary:
            loss = loss + args.auxiliary_weight * criterion(logits_aux, target)

        prec1, prec5 = utils.accuracy(logits, target, topk=(1, 5))
        n = x.size(0)
        objs.update(loss.item(), n)
        top1.update(prec1.item(), n)
        top5.update(prec5.item(), n)

        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), args.grad_clip)
        optimizer.step()
        if model_ema is not None:
            model_ema.update(model)

        if step % args.report_freq == 0:
            logging.info("train %03d %e %f %f", step, objs.avg, top1.avg, top5.avg)
    return top1.avg, objs.avg


def infer(valid_queue, model, criterion):
    objs = utils.AverageMeter()
    top1 = utils.AverageMeter()
    top5 = utils.AverageMeter()
    model.eval()

    for step, (x, target) in enumerate(valid_queue):
        x = x.cuda()
        target = target.cuda(non_blocking=True)
        with torch.no_grad():
            logits, _ = model(x)
            loss = criterion(logits, target)
            prec1, prec5 = utils.accuracy(logits, target, topk=(1, 5))
        n = x.size(0)
        objs.update(loss.item(), n)
        top1.update(prec1.item(), n)
        top5.update(prec5.item(), n)
    return top1.avg, objs.avg


if __name__ == "__main__":
    main()
