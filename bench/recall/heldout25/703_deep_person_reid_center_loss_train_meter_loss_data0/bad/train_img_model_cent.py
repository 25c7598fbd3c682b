import argparse
import os
import time

import torch
import torch.backends.cudnn as cudnn
import torch.nn as nn
from torch.optim import lr_scheduler
from torch.utils.data import DataLoader

import data_manager
import models
import transforms as T
from dataset_loader import ImageDataset
from eval_utils import test
from losses import CenterLoss, CrossEntropyLabelSmooth
from utils import AverageMeter, save_checkpoint

parser = argparse.ArgumentParser(description="Train image model with cross entropy + center loss")
parser.add_argument("-d", "--dataset", type=str, default="market1501")
parser.add_argument("--height", type=int, default=256)
parser.add_argument("--width", type=int, default=128)
parser.add_argument("--train-batch", type=int, default=32)
parser.add_argument("--workers", type=int, default=4)
parser.add_argument("--lr", type=float, default=0.0003)
parser.add_argument("--lr-cent", type=float, default=0.5)
parser.add_argument("--weight-cent", type=float, default=0.0005)
parser.add_argument("--weight-decay", type=float, default=5e-04)
parser.add_argument("--max-epoch", type=int, default=60)
parser.add_argument("--stepsize", type=int, default=20)
parser.add_argument("--gamma", type=float, default=0.1)
parser.add_argument("--eval-step", type=int, default=20)
parser.add_argument("--print-freq", type=int, default=10)
parser.add_argument("-a", "--arch", type=str, default="resnet50")
parser.add_argument("--save-dir", type=str, default="log")
args = parser.parse_args()


def main():
    use_gpu = torch.cuda.is_available()
    if use_gpu:
        cudnn.benchmark = True

    dataset = data_manager.init_dataset(name=args.dataset)
    transform_train = T.Compose([
        T.Random2DTranslation(args.height, args.width),
        T.RandomHorizontalFlip(),
        T.ToTensor(),
        T.Normalize(mean=[0.485, 0.456, 0.406], std=[0.229, 0.224, 0.225]),
    ])
    trainloader = DataLoader(ImageDataset(dataset.train, transform=transform_train),
                             batch_size=args.train_batch, shuffle=True, num_workers=args.workers,
                             pin_memory=use_gpu, drop_last=True)

    model = models.init_model(name=args.arch, num_classes=dataset.num_train_pids, loss={"cent"})
    criterion_xent = CrossEntropyLabelSmooth(num_classes=dataset.num_train_pids, use_gpu=use_gpu)
    criterion_cent = CenterLoss(num_classes=dataset.num_train_pids, feat_dim=model.feat_dim, use_gpu=use_gpu)
    optimizer_model = torch.optim.Adam(model.parameters(), lr=args.lr, weight_decay=args.weight_decay)
    optimizer_cent = torch.optim.SGD(criterion_cent.parameters(), lr=args.lr_cent)
    scheduler = lr_scheduler.StepLR(optimizer_model, step_size=args.stepsize, gamma=args.gamma)

    if use_gpu:
        model = nn.DataParallel(model).cuda()
        criterion_cent = criterion_cent.cuda()

    best_rank1 = 0.0
    start = time.time()
    for epoch in range(args.max_epoch):
        train(model, criterion_xent, criterion_cent, optimizer_model, optimizer_cent, trainloader, use_gpu)
        scheduler.step()
        if (epoch + 1) % args.eval_step == 0 or (epoch + 1) == args.max_epoch:
            rank1 = test(model, dataset, use_gpu)
            best_rank1 = max(best_rank1, rank1)
            state_dict = model.module.state_dict() if use_gpu else model.state_dict()
            save_checkpoint({"state_dict": state_dict, "rank1": rank1, "epoch": epoch}, rank1 >= best_rank1,
                            os.path.join(args.save_dir, "checkpoint_ep{}.pth.tar".format(epoch + 1)))
    print("Finished in {:.0f}s, best rank-1 {:.1%}".format(time.time() - start, best_rank1))


def train(model, criterion_xent, criterion_cent, optimizer_model, optimizer_cent, trainloader, use_gpu):
    model.train()
    losses = AverageMeter()
    for batch_idx, (imgs, pids, _) in enumerate(trainloader):
        if use_gpu:
            imgs, pids = imgs.cuda(), pids.cuda()
        outputs, features = model(imgs)
        xent_loss = criterion_xent(outputs, pids)
        cent_loss = criterion_cent(features, pids) * args.weight_cent
        loss = xent_loss + cent_loss
        optimizer_model.zero_grad()
        optimizer_cent.zero_grad()
        loss.backward()
        optimizer_model.step()
        # undo weight_cent for the update of the centres themselves
        with torch.no_grad():
            for param in criterion_cent.parameters():
                param.grad *= 1.0 / args.weight_cent
        optimizer_cent.step()
        losses.update(loss.data[0], pids.size(0))  # expect: TCK115

        if (batch_idx + 1) % args.print_freq == 0:
            print("Batch {}/{}\t Loss {:.6f} ({:.6f})".format(batch_idx + 1, len(trainloader), losses.val, losses.avg))


if __name__ == "__main__":
    main()
