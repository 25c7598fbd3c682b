import torch
import tqdm

from utils.eval_utils import accuracy


def train(train_loader, model, criterion, optimizer, epoch, args):
    model.train()
    for i, (images, target) in tqdm.tqdm(enumerate(train_loader), ascii=True, total=len(train_loader)):
        if args.gpu is not None:
            images = images.cuda(args.gpu, non_blocking=True)
            target = target.cuda(args.gpu, non_blocking=True)
        target = target.long()

        output = model(images)
        loss = criterion(output, target.view(-1))

        acc1, acc5 = accuracy(output, target, topk=(1, 5))
        if i % args.print_freq == 0:
            print(f"epoch {epoch} iter {i} loss {loss.item():.3f} acc1 {acc1.item():.2f} acc5 {acc5.item():.2f}")

        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


def validate(val_loader, model, criterion, args):
    model.eval()
    top1, n = 0.0, 0
    with torch.no_grad():
        for images, target in val_loader:
            if args.gpu is not None:
                images = images.cuda(args.gpu, non_blocking=True)
                target = target.cuda(args.gpu, non_blocking=True)
            target = target.long()
            output = model(images)
            acc1, _ = accuracy(output, target, topk=(1, 5))
            top1 += acc1.item() * images.size(0)
            n += images.size(0)
    return top1 / max(n, 1)
