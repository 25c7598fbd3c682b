import torch
from torch import nn
from net import Model


class Processor:
    def __init__(self, arg, data_loader):
        self.arg = arg
        self.data_loader = data_loader
        self.model = Model(arg.in_channels, arg.num_class)
        self.loss = nn.CrossEntropyLoss()
        self.optimizer = torch.optim.SGD(self.model.parameters(), lr=arg.base_lr, momentum=0.9)

    def train(self):
        self.model.train()
        loss_value = []
        for data, label in self.data_loader["train"]:
            output = self.model(data.float())
            loss = self.loss(output, label.long())  # expect: TCK605
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
            loss_value.append(loss.item())
        return sum(loss_value) / len(loss_value)
