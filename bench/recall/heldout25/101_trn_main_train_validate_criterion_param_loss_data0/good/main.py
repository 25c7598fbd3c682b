import os
import shutil
import time

import numpy as np
import torch
import torch.backends.cudnn as cudnn
import torch.nn.parallel
import torch.optim
import torchvision
from torch.nn.utils import clip_grad_norm_

import datasets_video
from dataset import TSNDataSet
from models import TSN
from opts import parser
from transforms import GroupCenterCrop, GroupNormalize, GroupScale, IdentityTransform, Stack, ToTorchFormatTensor

best_prec1 = 0


class AverageMeter(object):
    """Running value / sum / count / average of a scalar."""

    def __init__(self):
        self.val = self.avg = self.sum = self.count = 0

    def update(self, val, n=1):
        self.val = val
        self.sum += val * n
        self.count += n
        self.avg = self.sum / self.count


def accuracy(output, target, topk=(1,)):
    maxk = max(topk)
    batch_size = target.size(0)
    _, pred = output.topk(maxk, 1, True, True)
    pred = pred.t()
    correct = pred.eq(target.view(1, -1).expand_as(pred))
    res = []
    for k in topk:
        correct_k = correct[:k].reshape(-1).float().sum(0)
        res.append(correct_k.mul_(100.0 / batch_size))
    return res


def build_loader(args, list_file, transform, prefix, data_length, shuffle, random_shift=True):
    dataset = TSNDataSet(args.root_path, list_file, num_segments=args.num_segments, new_length=data_length,
                         modality=args.modality, image_tmpl=prefix, random_shift=random_shift, transform=transform)
    return torch.utils.data.DataLoader(dataset, batch_size=args.batch_size, shuffle=shuffle,
                                       num_workers=args.workers, pin_memory=True)


def main():
    global args, best_prec1
    args = parser.parse_args()
    categories, args.train_list, args.val_list, args.root_path, prefix = datasets_video.return_dataset(
        args.dataset, args.modality)
    args.store_name = "_".join(["TRN", args.dataset, args.modality, args.arch, args.consensus_type,
                                "segment%d" % args.num_segments])

    model = TSN(len(categories), args.num_segments, args.modality, base_model=args.arch,
                consensus_type=args.consensus_type, dropout=args.dropout,
                img_feature_dim=args.img_feature_dim, partial_bn=not args.no_partialbn)
    crop_size, scale_size = model.crop_size, model.scale_size
    normalize = GroupNormalize(model.input_mean, model.input_std) if args.modality != "RGBDiff" else IdentityTransform()
    policies = model.get_optim_policies()
    train_augmentation = model.get_augmentation()
    model = torch.nn.DataParallel(model, device_ids=args.gpus).cuda()
    cudnn.benchmark = True

    data_length = 1 if args.modality == "RGB" else 5
    roll = args.arch in ["BNInception", "InceptionV3"]
    train_loader = build_loader(args, args.train_list, torchvision.transforms.Compose([
        train_augmentation, Stack(roll=roll), ToTorchFormatTensor(div=not roll), normalize]),
        prefix, data_length, shuffle=True)
    val_loader = build_loader(args, args.val_list, torchvision.transforms.Compose([
        GroupScale(int(scale_size)), GroupCenterCrop(crop_size), Stack(roll=roll),
        ToTorchFormatTensor(div=not roll), normalize]), prefix, data_length, shuffle=False, random_shift=False)

    # define loss function (criterion) and optimizer
    if args.loss_type == "nll":
        criterion = torch.nn.CrossEntropyLoss().cuda()
    else:
        raise ValueError("Unknown loss type")
    optimizer = torch.optim.SGD(policies, args.lr, momentum=args.momentum, weight_decay=args.weight_decay)

    if args.evaluate:
        validate(val_loader, model, criterion, 0, None)
        return

    log_training = open(os.path.join(args.root_log, "%s.csv" % args.store_name), "w")
    for epoch in range(args.start_epoch, args.epochs):
        adjust_learning_rate(optimizer, epoch, args.lr_steps)
        train(train_loader, model, criterion, optimizer, epoch, log_training)
        if (epoch + 1) % args.eval_freq == 0 or epoch == args.epochs - 1:
            prec1 = validate(val_loader, model, criterion, (epoch + 1) * len(train_loader), log_training)
            is_best = prec1 > best_prec1
            best_prec1 = max(prec1, best_prec1)
            save_checkpoint({"epoch": epoch + 1, "arch": args.arch, "state_dict": model.state_dict(),
                             "best_prec1": best_prec1}, is_best)


def train(train_loader, model, criterion, optimizer, epoch, log):
    losses, top1, top5 = AverageMeter(), AverageMeter(), AverageMeter()
    model.module.partialBN(not args.no_partialbn)
    model.train()
    for i, (input, target) in enumerate(train_loader):
        target = target.cuda(non_blocking=True)
        input_var = torch.autograd.Variable(input)
        target_var = torch.autograd.Variable(target)

        output = model(input_var)
        loss = criterion(output, target_var)

        prec1, prec5 = accuracy(output.data, target, topk=(1, 5))
        losses.update(loss.item(), input.size(0))
        top1.update(prec1.item(), input.size(0))
        top5.update(prec5.item(), input.size(0))

        optimizer.zero_grad()
        loss.backward()
        if args.clip_gradient is not None:
            total_norm = clip_grad_norm_(model.parameters(), args.clip_gradient)
            if total_norm > args.clip_gradient:
                print("clipping gradient: {} with coef {}".format(total_norm, args.clip_gradient / total_norm))
        optimizer.step()

        if i % args.print_freq == 0:
            line = "Epoch: [{0}][{1}/{2}] Loss {loss.val:.4f} ({loss.avg:.4f}) Prec@1 {top1.avg:.3f}".format(
                epoch, i, len(train_loader), loss=losses, top1=top1)
            print(line)
            log.write(line + "\n")
            log.flush()


def validate(val_loader, model, criterion, iter, log):
    losses, top1, top5 = AverageMeter(), AverageMeter(), AverageMeter()
    model.eval()
    for i, (input, target) in enumerate(val_loader):
        target = target.cuda(non_blocking=True)
        with torch.no_grad():
            output = model(input)
            loss = criterion(output, target)

        prec1, prec5 = accuracy(output.data, target, topk=(1, 5))
        losses.update(loss.item(), input.size(0))
        top1.update(prec1.item(), input.size(0))
        top5.update(prec5.item(), input.size(0))

    line = "Testing Results: Prec@1 {top1.avg:.3f} Prec@5 {top5.avg:.3f} Loss {loss.avg:.5f}".format(
        top1=top1, top5=top5, loss=losses)
    print(line)
    if log is not None:
        log.write(line + "\n")
        log.flush()
    return top1.avg


def save_checkpoint(state, is_best):
    path = "%s/%s_checkpoint.pth.tar" % (args.root_model, args.store_name)
    torch.save(state, path)
    if is_best:
        shutil.copyfile(path, "%s/%s_best.pth.tar" % (args.root_model, args.store_name))


def adjust_learning_rate(optimizer, epoch, lr_steps):
    decay = 0.1 ** (sum(epoch >= np.array(lr_steps)))
    for param_group in optimizer.param_groups:
        param_group["lr"] = args.lr * decay * param_group["lr_mult"]
        param_group["weight_decay"] = args.weight_decay * param_group["decay_mult"]


if __name__ == "__main__":
    main()
