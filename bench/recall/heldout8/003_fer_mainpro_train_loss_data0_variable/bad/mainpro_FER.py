import torch
import torch.nn as nn
import torch.optim as optim
from torch.autograd import Variable

import utils
from models import VGG

use_cuda = torch.cuda.is_available()
learning_rate = 0.01

net = VGG("VGG19")
if use_cuda:
    net.cuda()
criterion = nn.CrossEntropyLoss()
optimizer = optim.SGD(net.parameters(), lr=learning_rate, momentum=0.9, weight_decay=5e-4)
trainloader = utils.get_train_loader(batch_size=128)


def train(epoch):
    print("\nEpoch: %d" % epoch)
    net.train()
    train_loss = 0
    correct = 0
    total = 0
    for batch_idx, (inputs, targets) in enumerate(trainloader):
        if use_cuda:
            inputs, targets = inputs.cuda(), targets.cuda()
        optimizer.zero_grad()
        inputs, targets = Variable(inputs), Variable(targets)
        outputs = net(inputs)
        loss = criterion(outputs, targets)
        loss.backward()
        utils.clip_gradient(optimizer, 0.1)
        optimizer.step()
        train_loss += loss.data[0]  # expect: TCK115
        _, predicted = torch.max(outputs.data, 1)
        total += targets.size(0)
        correct += predicted.eq(targets.data).cpu().sum()
    return train_loss / (batch_idx + 1), 100.0 * correct / total


for epoch in range(0, 250):
    train(epoch)
