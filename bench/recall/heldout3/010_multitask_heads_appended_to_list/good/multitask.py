import torch
import torch.nn as nn
from torch.autograd import Variable


class MultiTaskNet(nn.Module):
    def __init__(self, input_features, num_classes):
        super(MultiTaskNet, self).__init__()
        self.heads = nn.ModuleList()
        for n in num_classes:
            self.heads.append(nn.Linear(input_features, n))

    def forward(self, batch_in):
        x = Variable(torch.FloatTensor(batch_in).cuda())
        return [head(x) for head in self.heads]


def train(model, batches, targets_per_task, lr=1e-4):
    model.cuda()
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    criterion = nn.CrossEntropyLoss()
    for batch, targets in zip(batches, targets_per_task):
        optimizer.zero_grad()
        outputs = model(batch)
        loss = sum(criterion(out, t.cuda()) for out, t in zip(outputs, targets))
        loss.backward()
        optimizer.step()
