import torch
import torch.nn as nn

import resnet


def main(arch="resnet20", epochs=200, lr=0.1):
    model = resnet.__dict__[arch]()
    model.cuda()
    criterion = nn.CrossEntropyLoss().cuda()
    optimizer = torch.optim.SGD(model.parameters(), lr, momentum=0.9, weight_decay=1e-4)
    for epoch in range(epochs):
        train_one_epoch(model, criterion, optimizer)
    torch.save(model.state_dict(), "test.pkl")


def train_one_epoch(model, criterion, optimizer):
    model.train()
