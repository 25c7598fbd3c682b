import time

import torch
import torch.nn as nn

from utils import AverageMeter, accuracy


def train(epoch, train_loader, model_student, model_teacher, criterion, optimizer, scheduler):
    losses = AverageMeter("Loss", ":.4e")
    top1 = AverageMeter("Acc@1", ":6.2f")
    model_student.train()
    model_teacher.eval()
    end = time.time()

    for param_group in optimizer.param_groups:
        cur_lr = param_group["lr"]
    print("learning_rate:", cur_lr)

    for i, (images, target) in enumerate(train_loader):
        images = images.cuda()
        target = target.cuda()
        logits_student = model_student(images)
        logits_teacher = model_teacher(images)
        loss = criterion(logits_student, logits_teacher)
        prec1, prec5 = accuracy(logits_student, target, topk=(1, 5))
        losses.update(loss.item(), images.size(0))
        top1.update(prec1.item(), images.size(0))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    scheduler.step()
    print("epoch time", time.time() - end)
    return losses.avg, top1.avg


def main(args, model_student, model_teacher, criterion_kd, train_loader):
    optimizer = torch.optim.Adam(model_student.parameters(), lr=args.learning_rate, betas=(0.9, 0.999))
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda step: (1.0 - step / args.epochs), last_epoch=-1)
    epoch = 0
    while epoch < args.epochs:
        train(epoch, train_loader, model_student, model_teacher, criterion_kd, optimizer, scheduler)
        epoch += 1
