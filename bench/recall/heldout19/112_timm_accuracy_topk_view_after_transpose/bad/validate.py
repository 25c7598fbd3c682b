import torch
import torch.nn as nn
import torchvision

from metrics import AverageMeter, accuracy


def validate(model, loader, loss_fn, device="cuda"):
    losses_m = AverageMeter()
    top1_m = AverageMeter()
    top5_m = AverageMeter()
    model.eval()
    with torch.no_grad():
        for input, target in loader:
            input, target = input.to(device), target.to(device)
            output = model(input)
            loss = loss_fn(output, target)
            acc1, acc5 = accuracy(output, target, topk=(1, 5))
            losses_m.update(loss.item(), input.size(0))
            top1_m.update(acc1.item(), output.size(0))
            top5_m.update(acc5.item(), output.size(0))
    return {"loss": losses_m.avg, "top1": top1_m.avg, "top5": top5_m.avg}


if __name__ == "__main__":
    model = torchvision.models.resnet18(num_classes=100).cuda()
    data = torch.utils.data.TensorDataset(torch.randn(256, 3, 64, 64), torch.randint(0, 100, (256,)))
    loader = torch.utils.data.DataLoader(data, batch_size=64)
    print(validate(model, loader, nn.CrossEntropyLoss()))
