import torch
import torch.distributed as dist
from torch import nn
from torchvision import datasets, transforms


class ConvNet(nn.Module):
    def __init__(self, num_classes=10):
        super().__init__()
        self.layer1 = nn.Sequential(nn.Conv2d(1, 16, 5, padding=2), nn.BatchNorm2d(16), nn.ReLU(), nn.MaxPool2d(2))
        self.fc = nn.Linear(14 * 14 * 16, num_classes)

    def forward(self, x):
        return self.fc(self.layer1(x).reshape(x.size(0), -1))


def train(gpu, args, batch_size=100):
    rank = args.nr * args.gpus + gpu
    dist.init_process_group(backend="nccl", init_method="env://", world_size=args.world_size, rank=rank)
    torch.cuda.set_device(gpu)
    model = ConvNet().cuda(gpu)
    criterion = nn.CrossEntropyLoss().cuda(gpu)
    optimizer = torch.optim.SGD(model.parameters(), 1e-4)
    model = nn.parallel.DistributedDataParallel(model, device_ids=[gpu])
    train_dataset = datasets.MNIST(root="./data", train=True, transform=transforms.ToTensor(), download=True)
    train_sampler = torch.utils.data.distributed.DistributedSampler(train_dataset, num_replicas=args.world_size, rank=rank)
    train_loader = torch.utils.data.DataLoader(train_dataset, batch_size=batch_size, shuffle=False, pin_memory=True, sampler=train_sampler)
    for epoch in range(args.epochs):
        train_sampler.set_epoch(epoch)
        for images, labels in train_loader:
            images = images.cuda(non_blocking=True)
            labels = labels.cuda(non_blocking=True)
            loss = criterion(model(images), labels)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
