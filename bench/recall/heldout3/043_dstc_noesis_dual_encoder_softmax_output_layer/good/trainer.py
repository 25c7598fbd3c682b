import torch
from torch.nn import CrossEntropyLoss


class Trainer:
    def __init__(self, loss_func=CrossEntropyLoss(), batch_size=64):
        self.loss_func = loss_func
        self.batch_size = batch_size

    def train_batch(self, model, optimizer, context, candidates, targets):
        outputs = model(context, candidates)
        loss = self.loss_func(outputs, targets)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        return loss.item()
