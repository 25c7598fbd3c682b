import torch
import torch.nn as nn

from net import vgg16_bn
from yolo_loss import YoloLoss


def train(train_loader, num_epochs, learning_rate):
    net = vgg16_bn()
    net.cuda()
    criterion = YoloLoss(7, 2, 5, 0.5)
    optimizer = torch.optim.SGD(net.parameters(), lr=learning_rate, momentum=0.9, weight_decay=5e-4)
    for epoch in range(num_epochs):
        net.train()
        for images, target in train_loader:
            images, target = images.cuda(), target.cuda()
            loss = criterion(net(images), target)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        torch.save(net.state_dict(), "yolo.pth")
