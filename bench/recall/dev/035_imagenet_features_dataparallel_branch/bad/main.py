import torch
import torch.nn as nn
import torchvision.models as models


def main_worker(gpu, args, train_loader):
    model = models.__dict__[args.arch]()
    if args.distributed:
        torch.cuda.set_device(gpu)
        model.cuda(gpu)
        model = torch.nn.parallel.DistributedDataParallel(model, device_ids=[gpu])
    else:
        # DataParallel will divide and allocate batch_size to all available GPUs
        if args.arch.startswith("alexnet") or args.arch.startswith("vgg"):
            model.features = torch.nn.DataParallel(model.features)  # expect: TCK204
            model.cuda()
        else:
            model = torch.nn.DataParallel(model).cuda()  # expect: TCK204

    criterion = nn.CrossEntropyLoss().cuda()
    optimizer = torch.optim.SGD(model.parameters(), args.lr, momentum=0.9)
    for epoch in range(args.epochs):
        model.train()
        for images, target in train_loader:
            loss = criterion(model(images.cuda()), target.cuda())
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
