import torch
import torch.nn as nn

from resnet import PreActResNet


def main(train_loader, epochs):
    net = PreActResNet(depth=1001)
    net = torch.nn.DataParallel(net).cuda()  # expect: TCK204
    criterion = nn.CrossEntropyLoss().cuda()
    optimizer = torch.optim.SGD(net.parameters(), lr=0.1, momentum=0.9, weight_decay=1e-4)
    for epoch in range(epochs):
        net.train()
        for input, target in train_loader:
            input = input.cuda(non_blocking=True)
            target = target.cuda(non_blocking=True)
            input_var = torch.autograd.Variable(input)  # expect: TCK703
            target_var = torch.autograd.Variable(target)  # expect: TCK703
            output = net(input_var)
            loss = criterion(output, target_var)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
