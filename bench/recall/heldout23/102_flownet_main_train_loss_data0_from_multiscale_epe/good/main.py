import argparse
import time

import torch
import torch.nn.functional as F
import torch.utils.data
from tensorboardX import SummaryWriter

import datasets
import models
from multiscaleloss import multiscaleEPE, realEPE

parser = argparse.ArgumentParser(description="FlowNet training")
parser.add_argument("data", metavar="DIR")
parser.add_argument("--arch", default="flownets")
parser.add_argument("--epochs", type=int, default=300)
parser.add_argument("--epoch-size", type=int, default=1000)
parser.add_argument("--batch-size", type=int, default=8)
parser.add_argument("--lr", type=float, default=1e-4)
parser.add_argument("--multiscale-weights", type=float, nargs=5, default=[0.005, 0.01, 0.02, 0.08, 0.32])
parser.add_argument("--div-flow", type=float, default=20)
parser.add_argument("--sparse", action="store_true")
parser.add_argument("--print-freq", type=int, default=10)

n_iter = 0
args = None


class AverageMeter(object):
    def __init__(self):
        self.val, self.sum, self.count, self.avg = 0, 0, 0, 0

    def update(self, val, n=1):
        self.val = val
        self.sum += val * n
        self.count += n
        self.avg = self.sum / self.count


def train(train_loader, model, optimizer, epoch, train_writer):
    global n_iter
    batch_time = AverageMeter()
    losses = AverageMeter()
    flow2_EPEs = AverageMeter()
    epoch_size = len(train_loader) if args.epoch_size == 0 else min(len(train_loader), args.epoch_size)

    model.train()
    end = time.time()
    for i, (inputs, target) in enumerate(train_loader):
        target = target.cuda(non_blocking=True)
        input_var = torch.autograd.Variable(torch.cat([x.cuda() for x in inputs], 1))
        target_var = torch.autograd.Variable(target)

        output = model(input_var)
        if args.sparse:
            h, w = target_var.size()[-2:]
            output = [F.interpolate(output[0], (h, w)), *output[1:]]

        loss = multiscaleEPE(output, target_var, weights=args.multiscale_weights, sparse=args.sparse)
        flow2_EPE = args.div_flow * realEPE(output[0], target_var, sparse=args.sparse)
        losses.update(loss.item(), target.size(0))
        train_writer.add_scalar("train_loss", loss.item(), n_iter)
        flow2_EPEs.update(flow2_EPE.item(), target.size(0))

        optimizer.zero_grad()
        loss.backward()
        optimizer.step()

        batch_time.update(time.time() - end)
        end = time.time()
        if i % args.print_freq == 0:
            print("Epoch: [{}][{}/{}] Time {:.3f} Loss {:.4f} EPE {:.3f}".format(
                epoch, i, epoch_size, batch_time.val, losses.avg, flow2_EPEs.avg))
        n_iter += 1
        if i >= epoch_size:
            break
    return losses.avg, flow2_EPEs.avg


def validate(val_loader, model):
    flow2_EPEs = AverageMeter()
    model.eval()
    with torch.no_grad():
        for inputs, target in val_loader:
            target = target.cuda(non_blocking=True)
            output = model(torch.cat(inputs, 1).cuda())
            flow2_EPE = args.div_flow * realEPE(output, target, sparse=args.sparse)
            flow2_EPEs.update(flow2_EPE.item(), target.size(0))
    return flow2_EPEs.avg


def main():
    global args
    args = parser.parse_args()
    train_set, val_set = datasets.__dict__["flying_chairs"](args.data)
    train_loader = torch.utils.data.DataLoader(train_set, batch_size=args.batch_size, shuffle=True, num_workers=8)
    val_loader = torch.utils.data.DataLoader(val_set, batch_size=args.batch_size, shuffle=False, num_workers=8)
    model = torch.nn.DataParallel(models.__dict__[args.arch](None)).cuda()
    optimizer = torch.optim.Adam(model.parameters(), args.lr, betas=(0.9, 0.999))
    train_writer = SummaryWriter("runs/train")
    for epoch in range(args.epochs):
        train(train_loader, model, optimizer, epoch, train_writer)
        epe = validate(val_loader, model)
        train_writer.add_scalar("val_epe", epe, epoch)


if __name__ == "__main__":
    main()
