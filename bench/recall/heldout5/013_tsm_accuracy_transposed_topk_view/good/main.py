import torch

from utils import accuracy


def validate(val_loader, model, criterion):
    model.eval()
    top1_sum, top5_sum, n = 0.0, 0.0, 0
    with torch.no_grad():
        for input, target in val_loader:
            target = target.cuda()
            output = model(input.cuda())
            prec1, prec5 = accuracy(output.data, target, topk=(1, 5))
            top1_sum += prec1.item() * input.size(0)
            top5_sum += prec5.item() * input.size(0)
            n += input.size(0)
    return top1_sum / n, top5_sum / n
