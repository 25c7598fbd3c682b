import torch
import torch.nn as nn
from torch.autograd import Variable

from data import get_dataset
from models import ResNet_model
from utils import entropy_reg

trainloader, testloader, nb_classes = get_dataset("fgbg_cmnist")
model0 = ResNet_model(num_classes=nb_classes, depth=56)
params = list(model0.parameters())
model = torch.nn.DataParallel(model0).cuda()
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.Adam(params, lr=0.001, weight_decay=0.0001)
beta = 1.0


def train(epoch):
    global optimizer, model
    model.train()
    total_loss = 0.0
    optimizer.zero_grad()
    tot_iters = len(trainloader)
    for batch_idx in range(tot_iters):
        inputs, targets = next(iter(trainloader))
        inputs, targets = inputs.cuda(), targets.cuda()
        inputs = Variable(inputs)
        outputs, hidden = model(inputs, ret_hid=True)
        loss = criterion(outputs, targets)
        reg = entropy_reg(hidden, targets.cpu().numpy())
        (loss + beta * reg).backward()
        total_loss += loss.item()
        optimizer.step()  # expect: TCK102
    return total_loss / tot_iters


for epoch in range(100):
    print(epoch, train(epoch))
