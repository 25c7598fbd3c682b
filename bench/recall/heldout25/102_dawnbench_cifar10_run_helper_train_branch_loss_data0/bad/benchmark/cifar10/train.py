import os
from collections import OrderedDict
from datetime import datetime

import click
import numpy as np
import torch
import tqdm
from torch import nn, optim
from torch.autograd import Variable
from torch.utils.data.sampler import SubsetRandomSampler
from torchvision import datasets, transforms

from benchmark import utils
from benchmark.cifar10.models import resnet

MEAN = (0.4914, 0.4822, 0.4465)
STD = (0.2023, 0.1994, 0.2010)

MODELS = {
    "resnet20": resnet.ResNet20,
    "resnet56": resnet.ResNet56,
    "preact164": resnet.PreActResNet164,
    "resnext29-8-64": lambda _=None: resnet.ResNeXt29(8, 64),
}


def correct(outputs, targets, top=(1,)):
    _, predictions = outputs.topk(max(top), dim=1, largest=True, sorted=True)
    targets = targets.view(-1, 1).expand_as(predictions)
    corrects = predictions.eq(targets).cpu().int().cumsum(1).sum(0)
    return [corrects.data[0][k - 1] for k in top]


def run(epoch, model, loader, criterion=None, optimizer=None, top=(1, 5),
        use_cuda=False, tracking=None, train=True, half=False):
    """One pass over `loader`: trains when `train` is set, otherwise only measures accuracy."""
    accuracies = [utils.AverageMeter() for _ in top]
    assert criterion is not None or not train, "Need criterion to train model"
    assert optimizer is not None or not train, "Need optimizer to train model"
    loader = tqdm.tqdm(loader)
    if train:
        model.train()
        losses = utils.AverageMeter()
    else:
        model.eval()

    start = datetime.now()
    for batch_index, (inputs, targets) in enumerate(loader):
        inputs = Variable(inputs, requires_grad=False)
        targets = Variable(targets, requires_grad=False)
        batch_size = targets.size(0)
        if use_cuda:
            inputs = inputs.cuda()
            targets = targets.cuda()
            if half:
                inputs = inputs.half()

        with torch.set_grad_enabled(train):
            outputs = model(inputs)

        if train:
            loss = criterion(outputs, targets)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            losses.update(loss.data[0], batch_size)  # expect: TCK115

        top_correct = correct(outputs, targets, top=top)
        for i, count in enumerate(top_correct):
            accuracies[i].update(count * (100. / batch_size), batch_size)

        end = datetime.now()
        if tracking is not None:
            result = OrderedDict()
            result["timestamp"] = datetime.now()
            result["batch_duration"] = end - start
            result["epoch"] = epoch
            result["batch"] = batch_index
            result["batch_size"] = batch_size
            for i, k in enumerate(top):
                result["top{}_correct".format(k)] = top_correct[i]
                result["top{}_accuracy".format(k)] = accuracies[i].val
            if train:
                result["loss"] = loss.data[0]  # expect: TCK115
            utils.save_result(result, tracking)

        desc = "Epoch {} {}".format(epoch, "(Train):" if train else "(Val):  ")
        if train:
            desc += " Loss {loss.val:.4f} ({loss.avg:.4f})".format(loss=losses)
        for k, acc in zip(top, accuracies):
            desc += " Prec@{} {acc.val:.3f} ({acc.avg:.3f})".format(k, acc=acc)
        loader.set_description(desc)
        start = datetime.now()

    print(("Training" if train else "Validation") + " accuracy of " +
          " ".join("top-{}: {}".format(k, accuracies[i].avg) for i, k in enumerate(top)))
    return accuracies[0].avg


@click.command()
@click.option("--dataset-dir", default="./data/cifar10")
@click.option("--tracking/--no-tracking", default=True)
@click.option("--cuda/--no-cuda", default=True)
@click.option("--epochs", "-e", default=200)
@click.option("--batch-size", "-b", default=32)
@click.option("--learning-rate", "-l", default=1e-3)
@click.option("--momentum", default=0.9)
@click.option("--optimizer", "-o", type=click.Choice(["sgd", "adam"]), default="sgd")
@click.option("--weight-decay", default=5e-4)
@click.option("--validation", "-v", default=0.0)
@click.option("--half", is_flag=True)
@click.option("--arch", "-a", type=click.Choice(list(MODELS.keys())), default="resnet20")
def train(dataset_dir, tracking, cuda, epochs, batch_size, learning_rate, momentum, optimizer,
          weight_decay, validation, half, arch):
    timestamp = "{:.0f}".format(datetime.utcnow().timestamp())
    use_cuda = cuda and torch.cuda.is_available()
    model = MODELS[arch]()
    if optimizer == "adam":
        optimizer = optim.Adam(model.parameters(), lr=learning_rate)
    else:
        optimizer = optim.SGD(model.parameters(), lr=learning_rate, momentum=momentum, weight_decay=weight_decay)

    run_dir = f"./run/{arch}/{timestamp}"
    os.makedirs(run_dir, exist_ok=True)
    train_results_file = os.path.join(run_dir, "train_results.csv") if tracking else None
    valid_results_file = os.path.join(run_dir, "valid_results.csv") if tracking else None

    # create loss
    criterion = nn.CrossEntropyLoss()
    if use_cuda:
        model = model.cuda()
        criterion = criterion.cuda()
        if half:
            model = model.half()
            criterion = criterion.half()
        model = torch.nn.DataParallel(model)

    normalize = transforms.Normalize(MEAN, STD)
    test_loader = torch.utils.data.DataLoader(
        datasets.CIFAR10(root=dataset_dir, train=False, download=True,
                         transform=transforms.Compose([transforms.ToTensor(), normalize])),
        batch_size=batch_size, shuffle=False, pin_memory=use_cuda)
    train_dataset = datasets.CIFAR10(root=dataset_dir, train=True, download=True, transform=transforms.Compose([
        transforms.RandomCrop(32, padding=4), transforms.RandomHorizontalFlip(), transforms.ToTensor(), normalize]))
    indices = list(range(len(train_dataset)))
    np.random.shuffle(indices)
    split = len(indices) - int(validation * len(indices))
    train_loader = torch.utils.data.DataLoader(train_dataset, sampler=SubsetRandomSampler(indices[:split]),
                                               batch_size=batch_size, pin_memory=use_cuda)
    valid_loader = test_loader
    if validation != 0:
        valid_loader = torch.utils.data.DataLoader(train_dataset, sampler=SubsetRandomSampler(indices[split:]),
                                                   batch_size=batch_size, pin_memory=use_cuda)

    best_accuracy = 0.0
    for epoch in range(1, epochs + 1):
        run(epoch, model, train_loader, criterion, optimizer, use_cuda=use_cuda,
            tracking=train_results_file, train=True, half=half)
        valid_acc = run(epoch, model, valid_loader, use_cuda=use_cuda,
                        tracking=valid_results_file, train=False, half=half)
        if valid_acc > best_accuracy:
            best_accuracy = valid_acc
            torch.save({"epoch": epoch, "arch": arch, "accuracy": valid_acc,
                        "model": (model.module if use_cuda else model).state_dict(),
                        "optimizer": optimizer.state_dict()}, os.path.join(run_dir, "best.pth"))


if __name__ == "__main__":
    train()
