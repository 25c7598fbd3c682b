"""Concise multi-GPU training: a small ResNet-18 on Fashion-MNIST, one process per GPU.

Launched with: torchrun --nproc_per_node=NUM_GPUS multiple_gpus_concise.py
"""
import os

import torch
import torch.distributed as dist
import torchvision
from torch import nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils import data
from torchvision import transforms

from d2l import torch as d2l


def resnet18(num_classes, in_channels=1):
    """A slightly modified ResNet-18 model."""

    def resnet_block(in_channels, out_channels, num_residuals, first_block=False):
        blk = []
        for i in range(num_residuals):
            if i == 0 and not first_block:
                blk.append(d2l.Residual(in_channels, out_channels, use_1x1conv=True, strides=2))
            else:
                blk.append(d2l.Residual(out_channels, out_channels))
        return nn.Sequential(*blk)

    # smaller kernel, stride and padding at the start, and no max-pooling
    net = nn.Sequential(nn.Conv2d(in_channels, 64, kernel_size=3, stride=1, padding=1), nn.BatchNorm2d(64), nn.ReLU())
    net.add_module("resnet_block1", resnet_block(64, 64, 2, first_block=True))
    net.add_module("resnet_block2", resnet_block(64, 128, 2))
    net.add_module("resnet_block3", resnet_block(128, 256, 2))
    net.add_module("resnet_block4", resnet_block(256, 512, 2))
    net.add_module("global_avg_pool", nn.AdaptiveAvgPool2d((1, 1)))
    net.add_module("fc", nn.Sequential(nn.Flatten(), nn.Linear(512, num_classes)))
    return net


def train(net, batch_size, lr):
    dist.init_process_group("nccl")
    local_rank = int(os.environ["LOCAL_RANK"])
    device = torch.device("cuda", local_rank)
    torch.cuda.set_device(device)

    trans = transforms.ToTensor()
    mnist_train = torchvision.datasets.FashionMNIST(root="../data", train=True, transform=trans, download=True)
    sampler = data.distributed.DistributedSampler(mnist_train)
    # the global batch is split over the processes
    train_iter = data.DataLoader(mnist_train, batch_size // dist.get_world_size(), sampler=sampler, num_workers=4)
    _, test_iter = d2l.load_data_fashion_mnist(batch_size)

    def init_weights(m):
        if type(m) in [nn.Linear, nn.Conv2d]:
            nn.init.normal_(m.weight, std=0.01)

    torch.manual_seed(0)
    net.apply(init_weights)
    # one replica per process; gradients are all-reduced during backward
    net = DistributedDataParallel(net.to(device), device_ids=[local_rank])
    trainer = torch.optim.SGD(net.parameters(), lr)
    loss = nn.CrossEntropyLoss()
    timer, num_epochs = d2l.Timer(), 10
    for epoch in range(num_epochs):
        net.train()
        sampler.set_epoch(epoch)
        timer.start()
        for X, y in train_iter:
            trainer.zero_grad()
            X, y = X.to(device), y.to(device)
            l = loss(net(X), y)
            l.backward()
            trainer.step()
        timer.stop()
        if dist.get_rank() == 0:
            test_acc = d2l.evaluate_accuracy_gpu(net.module, test_iter)
            print(f"epoch {epoch + 1}, test acc {test_acc:.2f}, {timer.avg():.1f} sec/epoch")
    dist.destroy_process_group()


if __name__ == "__main__":
    net = resnet18(10)
    train(net, batch_size=512, lr=0.2)
