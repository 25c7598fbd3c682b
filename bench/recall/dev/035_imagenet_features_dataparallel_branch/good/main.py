import torch
import torch.nn as nn
import torchvision.models as models


def main_worker(gpu, args, train_loader):
    # one process per GPU, started by torch.multiprocessing.spawn or torchrun
    model = models.__dict__[args.arch]()
    torch.cuda.set_device(gpu)
    model.cuda(gpu)
    model = torch.nn.parallel.DistributedDataParallel(model, device_ids=[gpu])

    criterion = nn.CrossEntropyLoss().cuda()
    optimizer = torch.optim.SGD(model.parameters(), args.lr, momentum=0.9)
    for epoch in range(args.epochs):
        model.train()
        for images, target in train_loader:
            loss = criterion(model(images.cuda()), target.cuda())
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
