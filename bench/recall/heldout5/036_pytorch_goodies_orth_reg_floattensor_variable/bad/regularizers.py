import torch
from torch.autograd import Variable


def orth_reg(model, reg=1e-6):
    orth_loss = Variable(torch.FloatTensor(1), requires_grad=True)  # expect: TCK703
    for name, param in model.named_parameters():
        if "bias" not in name:
            param_flat = param.view(param.shape[0], -1)
            sym = torch.mm(param_flat, torch.t(param_flat))
            sym -= Variable(torch.eye(param_flat.shape[0]))  # expect: TCK703
            orth_loss = orth_loss + (reg * sym.abs().sum())
    return orth_loss


def train_step(model, criterion, optimizer, inputs, targets):
    optimizer.zero_grad()
    loss = criterion(model(inputs), targets) + orth_reg(model)
    loss.backward()
    optimizer.step()
    return loss.item()
