import argparse
import time

import torch
from torch import nn, optim

from model import TCN

parser = argparse.ArgumentParser(description="Sequence Modeling - Copying Memory Task")
parser.add_argument("--batch_size", type=int, default=32)
parser.add_argument("--cuda", action="store_false")
parser.add_argument("--dropout", type=float, default=0.0)
parser.add_argument("--clip", type=float, default=1.0, help="gradient clip, -1 means no clip")
parser.add_argument("--epochs", type=int, default=50)
parser.add_argument("--ksize", type=int, default=8)
parser.add_argument("--levels", type=int, default=8)
parser.add_argument("--blank_len", type=int, default=1000)
parser.add_argument("--seq_len", type=int, default=10)
parser.add_argument("--log-interval", type=int, default=50)
parser.add_argument("--lr", type=float, default=5e-4)
parser.add_argument("--optim", type=str, default="RMSprop")
parser.add_argument("--nhid", type=int, default=10)
parser.add_argument("--seed", type=int, default=1111)
args = parser.parse_args()

torch.manual_seed(args.seed)


def data_generator(T, mem_length, b_size):
    seq = torch.randint(1, 9, (b_size, mem_length))
    zeros = torch.zeros((b_size, T))
    marker = 9 * torch.ones((b_size, mem_length + 1))
    placeholders = torch.zeros((b_size, mem_length))
    x = torch.cat((seq.float(), zeros[:, :-1], marker), 1)
    y = torch.cat((placeholders, zeros, seq.float()), 1).long()
    return x, y


n_classes = 10
n_train, n_test = 10000, 1000
train_x, train_y = data_generator(args.blank_len, args.seq_len, n_train)
test_x, test_y = data_generator(args.blank_len, args.seq_len, n_test)

model = TCN(1, n_classes, [args.nhid] * args.levels, args.ksize, dropout=args.dropout)
if args.cuda:
    model.cuda()
    train_x, train_y, test_x, test_y = train_x.cuda(), train_y.cuda(), test_x.cuda(), test_y.cuda()

criterion = nn.CrossEntropyLoss()
optimizer = getattr(optim, args.optim)(model.parameters(), lr=args.lr)


def evaluate():
    model.eval()
    with torch.no_grad():
        out = model(test_x.unsqueeze(1).contiguous())
        loss = criterion(out.view(-1, n_classes), test_y.view(-1))
        pred = out.view(-1, n_classes).argmax(1)
        correct = pred.eq(test_y.view(-1)).sum().item()
    print(f"\nTest set: Average loss: {loss.item():.8f}  |  Accuracy: {100.0 * correct / pred.numel():.4f}\n")
    return loss.item()


def train(ep):
    model.train()
    total_loss, correct, counter = 0.0, 0, 0
    start_time = time.time()
    for batch_idx, start in enumerate(range(0, n_train, args.batch_size)):
        x = train_x[start : start + args.batch_size]
        y = train_y[start : start + args.batch_size]

        optimizer.zero_grad()
        out = model(x.unsqueeze(1).contiguous())
        loss = criterion(out.view(-1, n_classes), y.view(-1))
        pred = out.view(-1, n_classes).argmax(1)
        correct += pred.eq(y.view(-1)).sum().item()
        counter += pred.numel()
        loss.backward()
        if args.clip > 0:
            torch.nn.utils.clip_grad_norm_(model.parameters(), args.clip)
        optimizer.step()
        total_loss += loss.item()

        if batch_idx > 0 and batch_idx % args.log_interval == 0:
            elapsed = time.time() - start_time
            print(
                f"| Epoch {ep:3d} | {batch_idx:5d} batches | ms/batch {elapsed * 1000 / args.log_interval:5.2f} | "
                f"loss {total_loss / args.log_interval:5.8f} | accuracy {100.0 * correct / counter:5.4f}"
            )
            start_time = time.time()
            total_loss, correct, counter = 0.0, 0, 0


for ep in range(1, args.epochs + 1):
    train(ep)
    evaluate()
