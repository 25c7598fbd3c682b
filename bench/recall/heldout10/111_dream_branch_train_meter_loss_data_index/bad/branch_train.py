import argparse

import numpy as np
import torch
import torch.nn as nn
from torch.autograd import Variable

from branch_util import AverageMeter, Branch, norm_angle

parser = argparse.ArgumentParser(description="Pytorch Branch Finetuning")
parser.add_argument("-b", "--batch-size", default=256, type=int)
parser.add_argument("-f", "--feat-len", default=256, type=int)
parser.add_argument("--iters", default=10000, type=int)
parser.add_argument("--lr", default=1e-3, type=float)
parser.add_argument("--print-freq", "-p", default=10, type=int)


def gen_batch(batch_size, feat_len):
    train_feat = np.random.randn(batch_size, feat_len)
    target_feat = train_feat + 0.1 * np.random.randn(batch_size, feat_len)
    yaw = np.array([[norm_angle(a)] for a in np.random.uniform(50, 90, batch_size)])
    return train_feat, target_feat, yaw


def main():
    args = parser.parse_args()
    model = Branch(feat_dim=args.feat_len)
    model.cuda()
    criterion = nn.MSELoss().cuda()
    optimizer = torch.optim.SGD(model.parameters(), args.lr, momentum=0.9, weight_decay=1e-4)
    model.train()
    losses = AverageMeter()
    for it in range(args.iters):
        batch_train_feat, batch_target_feat, batch_norm_angle = gen_batch(args.batch_size, args.feat_len)
        batch_train_feat = Variable(torch.from_numpy(batch_train_feat.astype(np.float32))).cuda()
        batch_norm_angle = Variable(torch.from_numpy(batch_norm_angle.astype(np.float32))).cuda()
        batch_target_feat = Variable(torch.from_numpy(batch_target_feat.astype(np.float32))).cuda()

        output = model(batch_train_feat, batch_norm_angle)
        loss = criterion(output, batch_target_feat)
        losses.update(loss.data[0], loss.size(0))  # expect: TCK115

        optimizer.zero_grad()
        loss.backward()
        optimizer.step()

        if it % args.print_freq == 0:
            print("Iter: [{0}/{1}]\tLoss {loss.val:.4f} ({loss.avg:.4f})".format(it, args.iters, loss=losses))

    torch.save({"state_dict": model.state_dict()}, "checkpoint.pth")


if __name__ == "__main__":
    main()
