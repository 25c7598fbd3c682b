import argparse
import os
import time

import torch
import torch.nn.functional as F
import torch.optim as optim

import dataset
import model
from utee import misc

parser = argparse.ArgumentParser(description="PyTorch MNIST Example")
parser.add_argument("--wd", type=float, default=0.0001)
parser.add_argument("--batch_size", type=int, default=200)
parser.add_argument("--epochs", type=int, default=40)
parser.add_argument("--lr", type=float, default=0.01)
parser.add_argument("--ngpu", type=int, default=1)
parser.add_argument("--seed", type=int, default=117)
parser.add_argument("--log_interval", type=int, default=100)
parser.add_argument("--test_interval", type=int, default=5)
parser.add_argument("--logdir", default="log/default")
parser.add_argument("--data_root", default="/tmp/public_dataset/pytorch/")
parser.add_argument("--decreasing_lr", default="80,120")
args = parser.parse_args()
args.logdir = os.path.join(os.path.dirname(__file__), args.logdir)
misc.logger.init(args.logdir, "train_log")
print = misc.logger.info

args.cuda = torch.cuda.is_available()
torch.manual_seed(args.seed)

train_loader, test_loader = dataset.get(batch_size=args.batch_size, data_root=args.data_root, num_workers=1)

model = model.mnist(input_dims=784, n_hiddens=[256, 256], n_class=10)
model = torch.nn.DataParallel(model, device_ids=range(args.ngpu))
if args.cuda:
    model.cuda()

optimizer = optim.SGD(model.parameters(), lr=args.lr, weight_decay=args.wd, momentum=0.9)
decreasing_lr = list(map(int, args.decreasing_lr.split(",")))
best_acc, old_file = 0, None
t_begin = time.time()
try:
    for epoch in range(args.epochs):
        model.train()
        if epoch in decreasing_lr:
            optimizer.param_groups[0]["lr"] *= 0.1
        for batch_idx, (data, target) in enumerate(train_loader):
            indx_target = target.clone()
            if args.cuda:
                data, target = data.cuda(), target.cuda()

            optimizer.zero_grad()
            output = model(data)
            loss = F.cross_entropy(output, target)
            loss.backward()
            optimizer.step()

            if batch_idx % args.log_interval == 0 and batch_idx > 0:
                pred = output.detach().max(1)[1]
                correct = pred.cpu().eq(indx_target).sum()
                acc = correct * 1.0 / len(data)
                print("Train Epoch: {} [{}/{}] Loss: {:.6f} Acc: {:.4f} lr: {:.2e}".format(
                    epoch, batch_idx * len(data), len(train_loader.dataset),
                    loss.item(), acc, optimizer.param_groups[0]["lr"]))

        elapsed = time.time() - t_begin
        print("Elapsed {:.2f}s, {:.2f} s/epoch".format(elapsed, elapsed / (epoch + 1)))
        misc.model_snapshot(model, os.path.join(args.logdir, "latest.pth"))

        if epoch % args.test_interval == 0:
            model.eval()
            test_loss = 0
            correct = 0
            with torch.no_grad():
                for data, target in test_loader:
                    indx_target = target.clone()
                    if args.cuda:
                        data, target = data.cuda(), target.cuda()
                    output = model(data)
                    test_loss += F.cross_entropy(output, target).item()
                    pred = output.max(1)[1]
                    correct += pred.cpu().eq(indx_target).sum()

            test_loss = test_loss / len(test_loader)
            acc = 100.0 * correct / len(test_loader.dataset)
            print("\tTest set: Average loss: {:.4f}, Accuracy: {}/{} ({:.0f}%)".format(
                test_loss, correct, len(test_loader.dataset), acc))
            if acc > best_acc:
                new_file = os.path.join(args.logdir, "best-{}.pth".format(epoch))
                misc.model_snapshot(model, new_file, old_file=old_file, verbose=True)
                best_acc = acc
                old_file = new_file
except Exception:
    import traceback
    traceback.print_exc()
finally:
    print("Total Elapse: {:.2f}, Best Result: {:.3f}%".format(time.time() - t_begin, best_acc))
