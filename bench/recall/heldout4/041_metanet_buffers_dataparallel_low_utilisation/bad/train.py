import torch
import torch.nn as nn
import torch.nn.functional as F

from metanet import MetaNet


def train(loader, epochs=10, gpus=(0, 1, 2, 3)):
    model = MetaNet().cuda()
    model = nn.DataParallel(model, device_ids=list(gpus))  # expect: TCK204
    optimizer = torch.optim.SGD(model.module.params(), lr=0.1)
    for epoch in range(epochs):
        for x, y in loader:
            x, y = x.cuda(), y.cuda()
            loss = F.cross_entropy(model(x), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
