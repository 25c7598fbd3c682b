import torch


class ClassyOptimizer:
    """Holds the torch optimizer and the learning-rate schedule as a function of training progress."""

    def __init__(self, lr=0.1, momentum=0.9, weight_decay=1e-4):
        self.lr, self.momentum, self.weight_decay = lr, momentum, weight_decay
        self.optimizer = None

    def init_pytorch_optimizer(self, model):
        self.optimizer = torch.optim.SGD(model.parameters(), lr=self.lr, momentum=self.momentum,
                                         weight_decay=self.weight_decay)

    def update_schedule_on_epoch(self, where):
        for group in self.optimizer.param_groups:
            group["lr"] = self.lr * 0.5 * (1.0 + torch.cos(torch.tensor(where * torch.pi)).item())

    def backward(self, loss):
        self.optimizer.zero_grad()
        loss.backward()

    def update_schedule_and_step(self):
        self.optimizer.step()
